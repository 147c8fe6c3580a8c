/// The metric names and help texts of `/metrics` (the contract: `shared/spec/http-api.md`). Metrics made
/// through swift-metrics (`Timer`, `Counter` in the producers) carry no help text: the registry requires
/// one help text per name, and swift-metrics gives none.
package enum MetricNames {
    package static let sourceUp = "marketalertd_source_up"
    package static let quotesReceived = "marketalertd_quotes_received_total"
    package static let quotesRejected = "marketalertd_quotes_rejected_total"
    package static let streamConnected = "marketalertd_stream_connected"
    package static let streamReconnects = "marketalertd_stream_reconnects_total"
    package static let fetchDuration = "marketalertd_fetch_duration_seconds"
    package static let premiumPct = "marketalertd_premium_pct"
    package static let alertFiring = "marketalertd_alert_firing"
    package static let notifications = "marketalertd_notifications_total"
    package static let notificationsSilenced = "marketalertd_notifications_silenced_total"
    package static let webhookPending = "marketalertd_webhook_pending"
    package static let webhookOldestPending = "marketalertd_webhook_oldest_pending_seconds"
    /// Notifications a durable sink (webhook, ntfy, email) gave up on (`webhook`, `reason`: `permanent` — a
    /// 4xx answer or a 5xx SMTP reply — | `max_age`). Counted through swift-metrics: no help text.
    package static let webhookDropped = "marketalertd_webhook_dropped_total"
    package static let fxRateAge = "marketalertd_fx_rate_age_seconds"
    package static let tickToNotification = "marketalertd_tick_to_notification_seconds"
    package static let haLeader = "marketalertd_ha_leader"
    /// v3: order books thrown away and rebuilt from a fresh snapshot (`exchange`, `reason`).
    package static let bookResyncs = "marketalertd_book_resyncs_total"
    /// v3: levels held per book and side, at most the exchange's `depth_levels` (`exchange`, `market`, `side`:
    /// `bid` | `ask`), and the executable premium of a `basis: depth` rule at its notional (`rule`, `asset`).
    package static let bookLevels = "marketalertd_book_levels"
    package static let executablePct = "marketalertd_executable_pct"
    /// v3: notifications a route sent to a sink (`sink`, `kind`) and those it did not send (`kind`, `reason`:
    /// `time_interval` | `inhibited`).
    package static let notificationsRouted = "marketalertd_notifications_routed_total"
    package static let notificationsMuted = "marketalertd_notifications_muted_total"
    /// v3: the tether premium, USDT/KRW against the official USD/KRW (`provider`: the exchange USDT/KRW is from).
    package static let usdtKrwPremiumPct = "marketalertd_usdt_krw_premium_pct"
    /// v3: assets a rule evaluates (`rule`; changes with `assets: all`).
    package static let watchedAssets = "marketalertd_watched_assets"
    /// v3: 1 while an asset can move in a direction on an exchange, 0 while suspended, absent while unknown
    /// (`exchange`, `asset`, `direction`: `withdraw` | `deposit`).
    package static let transferOK = "marketalertd_transfer_ok"

    package static let help: [String: String] = [
        sourceUp: "1 while the source's last fetch or stream message succeeded, else 0.",
        quotesReceived: "Quotes accepted into the book.",
        streamConnected: "1 while the exchange's WebSocket is live.",
        streamReconnects: "WebSocket reconnects.",
        premiumPct: "The rule's current premium for the asset, in percent (absent while it cannot be computed).",
        alertFiring: "The current level while firing (1 = lowest level), 0 when not.",
        notifications: "Notifications emitted (after silences).",
        notificationsSilenced: "Notifications suppressed by a silence.",
        webhookPending: "Undelivered notifications in the webhook outbox.",
        webhookOldestPending: "Age of the oldest undelivered webhook notification (0 when none).",
        fxRateAge: "Age of the FX rate in use.",
        tickToNotification: "From the input's arrival at the engine to the notification handed to the sinks.",
        haLeader: "1 on the HA group's leader, 0 on a standby (only with ha:).",
        bookLevels: "Levels held per order book and side, at most depth_levels (books of basis depth rules only).",
        executablePct: "The rule's executable premium at its notional, in percent (basis depth; absent while no pair of books fills it).",
        transferOK: "1 while the asset can be withdrawn or deposited on the exchange, 0 while suspended (absent while unknown).",
        notificationsRouted: "Notifications a route sent to a sink (only with routes:).",
        notificationsMuted: "Notifications a route did not send: a time interval muted them, or an inhibit rule.",
        usdtKrwPremiumPct: "The tether premium: USDT/KRW against the official USD/KRW, in percent (absent while either is unknown).",
        watchedAssets: "Assets a premium rule evaluates now (changes with assets: all).",
    ]

    /// REST request durations: 5 ms to 30 s (exchange APIs answer in tens of ms; TWSE and timeouts take seconds).
    package static let fetchBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]

    /// Engine to sinks: sub-millisecond normally; a slow disk or journal shows in the upper buckets.
    package static let notificationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
    ]
}
