import MarketAlertKit
import Foundation
import MarketAlertCore
import NIOCore
import Synchronization

/// The per-frame path of one stream, run where a frame is read (on the connection's event loop): decodes it
/// into the market table and, when the socket read that brought it is done (`flush`), hands the markets it
/// touched to the consumer, the latest value of each: no wait, and a burst read at once is one batch. The
/// driver hears only
/// of frames that can change its state machine: acks, errors, shutdown notices, and every frame of a link
/// not yet live. On a live link, market data and heartbeats only move the link's two clocks, which the
/// driver collects (`takeActivity`) before each step of the machine.
///
/// A live link's market data never goes through the driver's task: the intake decodes it where it is read
/// and the driver only collects the link's activity (docs/design-history.md says why).
///
/// Not generic on purpose: the decoder is an existential, so this code is compiled once, specialized, and
/// never looks up generic metadata per frame.
package final class StreamIntake: Sendable {
    /// Frames larger than this are dropped unread (counted as `oversized`); the connection goes on.
    package static let decodeLimit = 1 << 20

    /// What happened on one link since the driver last looked.
    package struct Activity: Sendable, Equatable {
        package let id: StreamLinkID
        package let inbound: Date
        package let data: Date?
    }

    private struct Slot {
        let id: StreamLinkID
        var live: Bool
        var inbound: Date?
        var data: Date?
    }

    private struct State {
        var table: StreamMarketTable
        /// The machine's open links (at most a primary and a successor): frames of any other are ignored.
        var slots: [Slot] = []
        /// Markets the frames of the current read changed, handed on together when the read is done (`flush`):
        /// a burst that arrives in one read becomes one batch, the latest value per market.
        var pending: [Int] = []
        var isPending: [Bool]
        /// When each market's latest frame was read.
        var receivedAt: [Date]
        /// The batch handed on by the last `flush` (its storage is reused by the next).
        var batch: [Quote] = []

        init(table: StreamMarketTable) {
            self.table = table
            isPending = Array(repeating: false, count: table.entries.count)
            receivedAt = Array(repeating: .distantPast, count: table.entries.count)
            pending.reserveCapacity(table.entries.count)
            batch.reserveCapacity(table.entries.count)
        }
    }

    private let decoder: any ExchangeStreamProtocol
    private let state: Mutex<State>
    private let clock: any DaemonClock
    private let counters: StreamCounters
    private let emit: @Sendable (StreamUpdate) -> Void

    package init(
        decoder: any ExchangeStreamProtocol, table: StreamMarketTable, clock: any DaemonClock, counters: StreamCounters,
        emit: @escaping @Sendable (StreamUpdate) -> Void
    ) {
        self.decoder = decoder
        self.state = Mutex(State(table: table))
        self.clock = clock
        self.counters = counters
        self.emit = emit
    }

    /// The links whose frames count from now on (after each step of the machine); what was recorded for a
    /// link that stays is kept.
    package func accept(_ links: [StreamConnectionStateMachine.OpenLink]) {
        state.withLock { state in
            state.table.forgetChannels(except: links.map(\.id.raw))
            state.slots = links.map { link in
                var slot = state.slots.first { $0.id == link.id } ?? Slot(id: link.id, live: link.live)
                slot.live = link.live
                return slot
            }
        }
    }

    /// The watched pairs whose market ids (as the exchange writes them) are among `markets`.
    package func pairs(of markets: Set<String>) -> Set<MarketPair> {
        state.withLock { state in Set(state.table.entries.lazy.filter { markets.contains($0.market) }.map(\.pair)) }
    }

    /// When each market's latest data frame was read (`.distantPast`: none yet), in the table's order.
    package func receivedTimes() -> [Date] {
        state.withLock { $0.receivedAt }
    }

    /// The latest frame instants per link since the last call (links with nothing new are left out).
    package func takeActivity() -> [Activity] {
        state.withLock { state in
            var activity: [Activity] = []
            for index in state.slots.indices {
                guard let inbound = state.slots[index].inbound else { continue }
                activity.append(Activity(id: state.slots[index].id, inbound: inbound, data: state.slots[index].data))
                state.slots[index].inbound = nil
                state.slots[index].data = nil
            }
            return activity
        }
    }

    /// One text or binary message of link `id`. Returns the frame when the driver must hear of it.
    package func take(_ buffer: ByteBuffer, compressed: Bool, from id: StreamLinkID) -> StreamFrame? {
        let now = clock.now()
        let outcome: (frame: StreamFrame, report: Bool)? = state.withLock { state in
            state.table.connection = id.raw
            let frame = decode(buffer, compressed: compressed, into: &state.table, receivedAt: now)
            // A book to rebuild: the driver must hear of this frame, whatever it was, to take the request.
            let resync = !state.table.bookRequests.isEmpty
            guard let slot = state.slots.firstIndex(where: { $0.id == id }) else {
                // A link the machine gave up (closing): its market data is not handed on, but what the
                // exchange answered still counts (Kraken refuses markets one frame each, and the first
                // refusal already closes the connection).
                switch frame {
                case .acked, .rejected, .shutdownNotice, .reply: return (frame, true)
                default: return (frame, false)
                }
            }
            state.slots[slot].inbound = now
            switch frame {
            case .data:
                state.slots[slot].data = now
                for index in state.table.touched {
                    state.receivedAt[index] = now
                    if !state.isPending[index] {
                        state.isPending[index] = true
                        state.pending.append(index)
                    }
                }
                return (frame, resync || !state.slots[slot].live)
            case .dropped:
                // A refused frame changes no price, but may have thrown a book away (crossed, invalid): the
                // engine must hear of that market at once, or it would price with the book it last had.
                for index in state.table.touched where !state.isPending[index] {
                    state.isPending[index] = true
                    state.pending.append(index)
                }
                return (frame, resync || !state.slots[slot].live)
            case .heartbeat, .ignored, .unwatched:
                return (frame, resync || !state.slots[slot].live)
            case .acked, .rejected, .shutdownNotice, .reply:
                return (frame, true)
            }
        }
        guard let outcome else { return nil }
        count(outcome.frame)
        return outcome.report ? outcome.frame : nil
    }

    /// Books the decoder threw away or never had, to be rebuilt by the transport (v3).
    package func takeBookRequests() -> [BookSnapshotRequest] {
        state.withLock { $0.table.takeBookRequests() }
    }

    /// The transport could not carry out a request for entry `index` (a later diff may ask again).
    package func forgetBookRequest(_ index: Int) {
        state.withLock { $0.table.forgetBookRequest(index) }
    }

    /// A REST snapshot of entry `index`'s book (`StreamBookResync.restSnapshot`): seeded by the decoder and
    /// handed on like a frame's changes. False when the answer was no usable snapshot.
    package func seedBook(_ body: Data, at index: Int) -> Bool {
        let now = clock.now()
        let seeded = state.withLock { state in
            state.table.beginFrame()
            let seeded = body.withUnsafeBytes { decoder.seedBook($0, at: index, into: &state.table, receivedAt: now) }
            for touched in state.table.touched {
                state.receivedAt[touched] = now
                if !state.isPending[touched] {
                    state.isPending[touched] = true
                    state.pending.append(touched)
                }
            }
            return seeded
        }
        flush()
        return seeded
    }

    /// The read is done: hands on the markets its frames changed, the latest value of each, in one batch.
    package func flush() {
        state.withLock { state in
            guard !state.pending.isEmpty else { return }
            // One buffer for every batch: the consumer decides a batch before returning and keeps no
            // reference, so the buffer is unique again here and no read allocates one (one that keeps it,
            // the mailbox before the engine runs, makes the next batch copy once).
            state.batch.removeAll(keepingCapacity: true)
            for index in state.pending {
                state.batch.append(state.table.quote(index, exchange: decoder.exchange, receivedAt: state.receivedAt[index]))
                state.isPending[index] = false
            }
            state.pending.removeAll(keepingCapacity: true)
            // Under the lock: two links' batches reach the consumer in the order they were read.
            emit(.quotes(state.batch))
            // Let go of the quotes at once: a quote's order book shares the table's level storage, which the
            // next frame changes in place only while nothing else holds it (else each change would copy it).
            state.batch.removeAll(keepingCapacity: true)
        }
    }

    private func decode(_ buffer: ByteBuffer, compressed: Bool, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        // No extension was negotiated: a compressed frame is a protocol error.
        if compressed { return .dropped(.malformed) }
        if buffer.readableBytes > Self.decodeLimit { return .dropped(.oversized) }
        table.beginFrame()
        return buffer.withUnsafeReadableBytes { bytes in decoder.decode(bytes, into: &table, receivedAt: receivedAt) }
    }

    private func count(_ frame: StreamFrame) {
        counters.update { counters in
            counters.frames += 1
            switch frame {
            case .data: counters.dataFrames += 1
            case .heartbeat, .reply: counters.heartbeats += 1
            case .dropped(let reason): counters.dropped[reason, default: 0] += 1
            default: break
            }
        }
        if case .dropped(let reason) = frame, let label = FetchMetrics.reason(reason) {
            FetchMetrics.rejectedQuotes(decoder.exchange, reason: label)
        }
    }
}
