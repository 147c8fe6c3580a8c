import Foundation
import MarketAlertConfigReader
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Keeps the HTTP server answerable when clients hold connections open without using them (slow headers,
/// idle keep-alives, a script that opens hundreds): a monitor's `/healthz` must still get through.
///
/// - **Request deadline**: a connection has `requestDeadline` (10 s) from its start, or from the end of its
///   last answer, to send a whole request (head and body); then it is closed. Bytes trickling in do not
///   extend it (an idle timer reset by every byte is what let slow headers hold a connection forever).
/// - **Per-client cap**: one address holds at most `perClient` connections; a new one beyond that closes that
///   address's oldest idle connection (one not in the middle of a request).
/// - **Total cap**: past `total` connections a new one closes the oldest idle one of anyone. The listener
///   never stops accepting below the backstop (`APIServer`), so a fresh request always finds a seat: the
///   connections given up are those that sent nothing for the longest.
///
/// A connection is "busy" from its request's head to the end of its answer, and is never closed for room.
package final class ConnectionGuard: Sendable {
    package struct Limits: Sendable {
        package var requestDeadline: TimeAmount = .seconds(10)
        package var perClient = 32
        package var total = 256
    }

    private struct Entry {
        let client: String
        let channel: any Channel
        var busy = false
    }

    private struct State {
        var next: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
    }

    package let limits: Limits
    private let state = Mutex(State())

    package init(limits: Limits = Limits()) { self.limits = limits }

    /// Connections open now.
    package var count: Int { state.withLock { $0.entries.count } }

    /// Registers a new connection; closes whatever must give way for it (or the new one, when everything
    /// else is busy). Returns its id.
    package func register(_ channel: any Channel) -> UInt64 {
        let client = channel.remoteAddress?.ipAddress ?? "unknown"
        let (id, closing) = state.withLock { state -> (UInt64, [any Channel]) in
            state.next += 1
            let id = state.next
            state.entries[id] = Entry(client: client, channel: channel)
            var closing: [any Channel] = []
            func evict(where belongs: (Entry) -> Bool) {
                let oldest = state.entries.filter { $0.key != id && !$0.value.busy && belongs($0.value) }.min { $0.key < $1.key }
                if let (victim, entry) = oldest {
                    state.entries[victim] = nil
                    closing.append(entry.channel)
                } else {
                    state.entries[id] = nil
                    closing.append(channel)
                }
            }
            if state.entries.values.count(where: { $0.client == client }) > limits.perClient {
                evict { $0.client == client }
            }
            if state.entries[id] != nil, state.entries.count > limits.total {
                evict { _ in true }
            }
            return (id, closing)
        }
        for channel in closing { channel.close(promise: nil) }
        return id
    }

    package func setBusy(_ id: UInt64, _ busy: Bool) {
        state.withLock { $0.entries[id]?.busy = busy }
    }

    package func remove(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }
}

/// One connection's side of `ConnectionGuard`, after the HTTP codec: it sees request heads and ends, and
/// the ends of answers.
package final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let connections: ConnectionGuard
    private var id: UInt64?
    private var deadline: Scheduled<Void>?
    private var closeAfterAnswer = false

    package init(_ connections: ConnectionGuard) { self.connections = connections }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) { stop() }

    package func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let id { connections.setBusy(id, true) }
            // A CONNECT turns the codec into a tunnel: its answer has no framing, so the connection ends with it.
            if head.method == .connect { closeAfterAnswer = true }
        case .end:
            deadline?.cancel()  // the whole request is in
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            if let id { connections.setBusy(id, false) }
            if closeAfterAnswer {
                let channel = context.channel
                let written = context.eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in channel.close(promise: nil) }
                if let promise { written.futureResult.cascade(to: promise) }
                context.writeAndFlush(data, promise: written)
                return
            }
            armDeadline(context)  // the next request, on this keep-alive connection, has its own deadline
        }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard id == nil else { return }
        id = connections.register(context.channel)
        armDeadline(context)
    }

    private func armDeadline(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: connections.limits.requestDeadline) { channel.close(promise: nil) }
    }

    private func stop() {
        deadline?.cancel()
        deadline = nil
        if let id { connections.remove(id) }
        id = nil
    }
}
