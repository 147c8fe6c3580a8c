import Foundation

extension ExchangeSettings {
    /// `exchanges.<id>`: `enabled`, `poll_interval` (not below the exchange's documented minimum), `timeout`,
    /// `base_url`, (v2) `stream`, `stream_url`, `stale_after`, and (v3) `taker_fee_pct`, `depth_levels`.
    ///
    /// A file that overrides `base_url` but not `stream_url` gets no stream: a test or private endpoint must
    /// never be paired with the real exchange's WebSocket. The exception, KuCoin, gets its stream endpoint
    /// from `base_url` itself.
    static func read(_ sub: ConfigTable, known: ExchangeCatalog.Entry) -> ExchangeSettings {
        var exchange = ExchangeSettings(id: known.id, baseURL: known.defaultBaseURL)
        if let enabled = sub.bool("enabled") { exchange.enabled = enabled }
        let baseOverridden = sub.has("base_url")
        if let url = sub.url("base_url") { exchange.baseURL = url }
        if let value = sub.duration("poll_interval") {
            // The minimum protects the exchange's real API; a loopback endpoint (a test server, a local
            // cache) only needs a positive interval.
            let minimum = exchange.baseURL.isLoopback ? .milliseconds(10) : known.minimumPollInterval
            if value < minimum {
                sub.error(
                    "poll_interval",
                    "\(DurationText.format(value)) is below \(known.id.rawValue)'s minimum of \(DurationText.format(minimum)) (its public rate limits would ban this host)")
            } else {
                exchange.pollInterval = value
            }
        }
        if let value = sub.duration("timeout") {
            if value > .zero { exchange.timeout = value } else { sub.error("timeout", "must be greater than 0") }
        }
        if let stream = sub.bool("stream") { exchange.streamEnabled = stream }
        if sub.has("stream_url") {
            exchange.streamURL = sub.webSocketURL("stream_url")
        } else if !baseOverridden {
            exchange.streamURL = known.defaultStreamURL
        } else if known.defaultStreamURL == known.defaultBaseURL {
            // An exchange whose REST API hands out its stream endpoint (KuCoin's bullet) names that API as its
            // stream URL: the stream follows `base_url` to the same server.
            exchange.streamURL = exchange.baseURL
        }
        exchange.takerFeePct = known.takerFeePct
        exchange.restRequestsPerSecond = known.restRequestsPerSecond
        if let value = sub.number("taker_fee_pct") {
            if value >= 0, value < 10 { exchange.takerFeePct = value } else { sub.error("taker_fee_pct", "must be from 0 to below 10 (percent), got \(value)") }
        }
        if let value = sub.integer("depth_levels") {
            if (1...ExchangeSettings.maximumDepthLevels).contains(value) {
                exchange.depthLevels = value
            } else {
                sub.error("depth_levels", "must be from 1 to \(ExchangeSettings.maximumDepthLevels), got \(value)")
            }
        }
        if let value = sub.duration("stale_after") {
            if value >= .seconds(1) { exchange.staleAfter = value } else { sub.error("stale_after", "must be at least 1s") }
        }
        return exchange
    }
}

extension ConfigTable {
    /// A ws(s) URL, e.g. `stream_url`.
    package func webSocketURL(_ key: String) -> URL? {
        guard let text = string(key) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["ws", "wss"].contains(scheme), url.host != nil else {
            error(key, "expected a ws:// or wss:// URL, got \"\(text)\"")
            return nil
        }
        return url
    }
}

extension URL {
    /// `127.0.0.0/8`, `::1` or `localhost`.
    package var isLoopback: Bool {
        guard let host = host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
