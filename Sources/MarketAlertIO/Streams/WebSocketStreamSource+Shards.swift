import Foundation
import MarketAlertCore
import Synchronization

extension WebSocketStreamSource {
    /// `pairs` split for connections of at most `limit` markets each: one share when there is no limit or
    /// the pairs fit, else as few shares as the limit allows, of nearly equal size (30 markets at 25 per
    /// connection: 15 and 15), in the order of their market ids, so the same pairs always split the same way.
    package static func shards(of pairs: Set<MarketPair>, limit: Int?, marketID: (MarketPair) -> String) -> [Set<MarketPair>] {
        guard let limit, limit > 0, pairs.count > limit else { return [pairs] }
        var keyed: [(id: String, pair: MarketPair)] = []
        for pair in pairs { keyed.append((id: marketID(pair), pair: pair)) }
        let ordered: [MarketPair] = keyed.sorted(by: Self.marketOrder).map { (entry: (id: String, pair: MarketPair)) -> MarketPair in entry.pair }
        let count = (ordered.count + limit - 1) / limit
        let (size, larger) = ordered.count.quotientAndRemainder(dividingBy: count)
        var shards: [Set<MarketPair>] = []
        var start = 0
        for index in 0..<count {
            let end = start + size + (index < larger ? 1 : 0)
            shards.append(Set(ordered[start..<end]))
            start = end
        }
        return shards
    }

    /// By market id, then (two pairs with one id) by the pair's name.
    private static func marketOrder(_ a: (id: String, pair: MarketPair), _ b: (id: String, pair: MarketPair)) -> Bool {
        if a.id != b.id { return a.id < b.id }
        return a.pair.description < b.pair.description
    }

    /// One connection per share, children of one task group (cancelling `run` ends them all), sharing this
    /// source's counters. Each shard's quotes go to `emit` from its intake unchanged; their states are
    /// merged by `ShardedStreamStatus` (its doc says how) and emitted as one exchange's, in order.
    func runSharded(_ shards: [Set<MarketPair>], emit: @escaping @Sendable (StreamUpdate) -> Void) async {
        let merge = ShardedStreamMerge(ShardedStreamStatus(shards: shards), emit: emit)
        logger?.info("stream: the exchange limits markets per connection; the markets are spread over several", metadata: [
            "source": "\(exchange.rawValue)", "connections": "\(shards.count)",
            "markets": "\(shards.map { "\($0.count)" }.joined(separator: "+"))"])
        await withTaskGroup(of: Void.self) { group in
            for (index, pairs) in shards.enumerated() {
                group.addTask {
                    await runConnection(pairs: pairs, quotes: emit, status: { merge.receive($0, from: index) }, connection: "\(index + 1)/\(shards.count)")
                }
            }
        }
    }
}

/// `ShardedStreamStatus` shared by the shards' drivers, each on its own task. The consumer hears the merged
/// updates inside the lock, so they reach it in the order they were merged (`emit` never waits).
final class ShardedStreamMerge: Sendable {
    private let status: Mutex<ShardedStreamStatus>
    private let emit: @Sendable (StreamUpdate) -> Void

    init(_ status: ShardedStreamStatus, emit: @escaping @Sendable (StreamUpdate) -> Void) {
        self.status = Mutex(status)
        self.emit = emit
    }

    func receive(_ update: StreamUpdate, from shard: Int) {
        status.withLock { status in
            for merged in status.receive(update, from: shard) { emit(merged) }
        }
    }
}
