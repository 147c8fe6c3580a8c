import Foundation
import Logging
import MarketAlertCore
import NIOCore

/// Order books the decoder threw away (a gap, a checksum that failed) or never had: rebuilt the exchange's
/// way, by a new connection, a new subscription or a REST snapshot fetched with backoff.
extension StreamDriver {
    /// Books the decoder threw away (or never had): each is rebuilt the exchange's way (`bookResync`) and a
    /// resync is counted by reason. Returns what the machine must hear (a replacement connection, or a
    /// market's book asked for again on the serving one).
    mutating func rebuildBooks(group: inout DiscardingTaskGroup, sink: AsyncQueue<StreamDriverEvent>) -> [StreamConnectionEvent] {
        let requests = intake.takeBookRequests()
        guard !requests.isEmpty else { return [] }
        let exchange = source.exchange
        for request in requests {
            guard let reason = request.reason else { continue }
            FetchMetrics.bookResync(exchange, reason: reason)
            source.logger?.info("stream: an order book is rebuilt from a fresh snapshot", metadata: [
                "source": "\(exchange.rawValue)", "market": "\(request.market)", "reason": "\(reason.rawValue)"])
        }
        switch source.protocolDescription.bookResync {
        case .reconnect:
            // Books never seeded wait for the subscriptions' own snapshots.
            for request in requests { intake.forgetBookRequest(request.index) }
            guard requests.contains(where: { $0.reason != nil }), let primary = machine.primaryLink, machine.successorLink == nil
            else { return [] }
            return [.shutdownNotice(primary)]
        case .resubscribe(let messages):
            for request in requests { intake.forgetBookRequest(request.index) }
            guard let primary = machine.primaryLink, links[primary]?.connected == true else { return [] }
            let again = requests.filter { $0.reason != nil }.flatMap { messages($0.market) }
            return again.isEmpty ? [] : [.resubscribe(primary, drop: [], messages: again, acks: [])]
        case .restSnapshot:
            for request in requests { fetchBook(request, after: nil, group: &group, sink: sink) }
            return []
        }
    }

    /// GETs a REST snapshot of `request`'s book (after `delay`, if any), retrying with backoff (1 s doubling
    /// to 1 min) while the exchange does not answer; the body comes back as `.bookSnapshot`.
    func fetchBook(_ request: BookSnapshotRequest, after delay: Duration?, group: inout DiscardingTaskGroup, sink: AsyncQueue<StreamDriverEvent>) {
        guard case .restSnapshot(let path) = source.protocolDescription.bookResync else { return }
        var text = source.restBaseURL?.absoluteString ?? ""
        while text.hasSuffix("/") { text.removeLast() }
        guard !text.isEmpty, let url = URL(string: text + path(request.market)) else {
            // A source made without the exchange's REST URL (not the daemon's): the book stays unusable.
            source.logger?.warning("stream: no REST URL to fetch a book snapshot from; the book stays unusable", metadata: [
                "source": "\(source.exchange.rawValue)", "market": "\(request.market)"])
            return
        }
        let fetcher = source.bookFetcher
        let clock = source.clock
        let logger = source.logger
        let exchange = source.exchange.rawValue
        let timeout = source.connectTimeout
        let label = ClockLabel("book snapshot \(exchange)")
        let backoff = Backoff(base: .seconds(1), maximum: .seconds(60), jitter: 0)
        group.addTask {
            var wait = delay
            var failures = 0
            while true {
                if let wait {
                    do { try await clock.sleep(until: clock.now().addingTimeInterval(wait.seconds), label: label) } catch { return }
                }
                do {
                    let answer = try await fetcher.get(url, source: exchange, timeout: timeout)
                    sink.yield(.bookSnapshot(request, answer.body))
                    return
                } catch {
                    failures += 1
                    logger?.warning("stream: a book snapshot failed; retrying", metadata: [
                        "source": "\(exchange)", "market": "\(request.market)", "error": "\(error)"])
                    wait = backoff.delay(afterFailures: failures, random: 0)
                }
                if Task.isCancelled { return }
            }
        }
    }
}
