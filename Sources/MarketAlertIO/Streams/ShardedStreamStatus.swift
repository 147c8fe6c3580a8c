import Foundation
import MarketAlertCore

/// The state of an exchange whose markets are spread over several connections (shards, because the exchange
/// limits channels per connection), merged into the one stream of updates its consumer hears. Pure: each
/// shard's update goes in, what the consumer must hear comes out.
///
/// The merge, and why: the exchange is `.live` only while every shard is live, and `.down` as soon as one
/// is down (the reason names it: `connection 2 of 3: …`). The consumer (`ExchangeProducer`) then polls every
/// market over REST as a snapshot, as for a single connection that is down. Marking only the down shard's
/// markets REST-only would poll fewer markets, but such polls are updates whose failures raise no
/// `source/<exchange>` alert (the exchange's health is taken to be its live stream's), so a down connection
/// plus a failing REST API would go unnoticed, and the status page would call the exchange's stream live.
///
/// One exception: a shard whose every market is REST-only (the exchange refused them all, the shard paused
/// until it asks again) carries nothing, so its `.down` does not take the exchange down while another shard
/// is live. `.restOnly` sets are unioned over the shards and emitted when the union changes, before any
/// change of liveness they cause. Quotes are not merged: each shard's intake hands them to the consumer.
package struct ShardedStreamStatus: Sendable {
    /// Each shard's markets.
    package let shards: [Set<MarketPair>]
    private var live: [Bool]
    private var restOnly: [Set<MarketPair>]
    private var union: Set<MarketPair> = []
    /// What the consumer was last told: nil before anything, true `.live`, false `.down`.
    private var reported: Bool?

    package init(shards: [Set<MarketPair>]) {
        self.shards = shards
        live = Array(repeating: false, count: shards.count)
        restOnly = Array(repeating: [], count: shards.count)
    }

    /// Whether the merged stream is live now: every shard live or carrying nothing, and one of them live.
    package var isLive: Bool {
        shards.indices.allSatisfy { live[$0] || carriesNothing($0) } && live.contains(true)
    }

    /// Shard `shard`'s `update`; returns what the consumer must hear, in order.
    package mutating func receive(_ update: StreamUpdate, from shard: Int) -> [StreamUpdate] {
        guard shards.indices.contains(shard) else { return [] }
        switch update {
        case .quotes:
            return [update]
        case .live:
            live[shard] = true
            return liveness(down: nil)
        case .down(let reason):
            live[shard] = false
            return liveness(down: "connection \(shard + 1) of \(shards.count): \(reason)")
        case .restOnly(let pairs):
            restOnly[shard] = pairs
            let merged = restOnly.reduce(into: Set<MarketPair>()) { $0.formUnion($1) }
            var out: [StreamUpdate] = []
            if merged != union {
                union = merged
                out.append(.restOnly(merged))
            }
            let reason = "connection \(shard + 1) of \(shards.count): its markets are back on the stream, which is not live yet"
            return out + liveness(down: reported == true ? reason : nil)
        }
    }

    private func carriesNothing(_ shard: Int) -> Bool { shards[shard].isSubset(of: restOnly[shard]) }

    /// `.live` when the merged stream became live; `.down(reason)` for a shard that went down (each time,
    /// like a single connection's repeated downs) unless the stream is still live without it.
    private mutating func liveness(down reason: String?) -> [StreamUpdate] {
        if isLive {
            guard reported != true else { return [] }
            reported = true
            return [.live]
        }
        guard let reason else { return [] }
        reported = false
        return [.down(reason: reason)]
    }
}
