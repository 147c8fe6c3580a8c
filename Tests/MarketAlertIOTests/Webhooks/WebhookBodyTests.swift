import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

@Suite("Webhook bodies per format", .timeLimit(.minutes(1)))
struct WebhookBodyTests {
    @Test(
        "json: the event itself, as received, validates against alert-event.schema.json",
        arguments: [SampleEvents.premium(), SampleEvents.ipo(), SampleEvents.fx(), SampleEvents.source()])
    func jsonBodyValidatesAgainstSchema(event: AlertEvent) async throws {
        let harness = try await OutboxHarness()
        let outbox = harness.outbox([harness.target(format: .json)])
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()

        try await outbox.deliver(event)
        let request = try await arrivals.expectNext()

        let validation = try await Python.validateEvent(request.body)
        #expect(validation.status == 0, "schema errors: \(validation.stdout) \(validation.stderr)")
        #expect(request.body == (try AlertEvent.makeEncoder().encode(event)))
        let decoded = try AlertEvent.makeDecoder().decode(AlertEvent.self, from: request.body)
        #expect(decoded == event)
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("the schema check rejects a body that breaks the schema (so it can fail)")
    func schemaCheckCanFail() async throws {
        var event = SampleEvents.premium()
        event.premium = nil  // kind premium requires a premium object
        let body = try AlertEvent.makeEncoder().encode(event)
        let validation = try await Python.validateEvent(body)
        #expect(validation.status == 1, "stderr: \(validation.stderr)")
        #expect(validation.stdout.contains("premium"))
    }

    struct SlackBody: Decodable, Equatable { var text: String }

    struct DiscordBody: Decodable, Equatable {
        struct Mentions: Decodable, Equatable { var parse: [String] }
        var content: String
        var allowed_mentions: Mentions
    }

    struct TelegramBody: Decodable, Equatable {
        var chat_id: String
        var text: String
    }

    @Test("slack, discord and telegram bodies as received")
    func chatFormats() async throws {
        let harness = try await OutboxHarness()
        let slackReceiver = try await WebhookReceiver(path: "/slack")
        let discordReceiver = try await WebhookReceiver(path: "/discord")
        let targets = [
            WebhookTarget(name: "slack", url: slackReceiver.url, format: .slack),
            WebhookTarget(name: "discord", url: discordReceiver.url, format: .discord),
            WebhookTarget(name: "telegram", url: harness.receiver.url, format: .telegram, chatID: "-1001234567890"),
        ]
        let outbox = harness.outbox(targets)
        let run = Task { await outbox.run() }
        var slackArrivals = slackReceiver.arrivals.makeAsyncIterator()
        var discordArrivals = discordReceiver.arrivals.makeAsyncIterator()
        var telegramArrivals = harness.receiver.arrivals.makeAsyncIterator()
        let event = SampleEvents.premium(summary: "BTC premium 0.123% >= 0.1% & rising <fast> @everyone")

        try await outbox.deliver(event)
        let slack = try await slackArrivals.expectNext().body
        let discord = try await discordArrivals.expectNext().body
        let telegram = try await telegramArrivals.expectNext().body

        // As JSON-escaped text (\n is the two characters backslash and n).
        let plain = #"[WARNING] premium/global/BTC firing\nBTC premium 0.123% >= 0.1% & rising <fast> @everyone\n2026-03-10T02:47:00Z"#
        #expect(String(decoding: slack, as: UTF8.self) == #"{"text":"[WARNING] premium/global/BTC firing\nBTC premium 0.123% &gt;= 0.1% &amp; rising &lt;fast&gt; @everyone\n2026-03-10T02:47:00Z"}"#)
        #expect(String(decoding: discord, as: UTF8.self) == #"{"allowed_mentions":{"parse":[]},"content":"\#(plain)"}"#)
        #expect(String(decoding: telegram, as: UTF8.self) == #"{"chat_id":"-1001234567890","text":"\#(plain)"}"#)
        let decoder = JSONDecoder()
        #expect(try decoder.decode(SlackBody.self, from: slack).text.hasSuffix("@everyone\n2026-03-10T02:47:00Z"))
        #expect(try decoder.decode(DiscordBody.self, from: discord).allowed_mentions.parse.isEmpty)
        #expect(try decoder.decode(TelegramBody.self, from: telegram).text.contains("& rising <fast>"))
        run.cancel()
        await run.value
        await slackReceiver.server.shutdown()
        await discordReceiver.server.shutdown()
        await harness.shutdown()
    }

    @Test("discord and telegram texts are cut to their API limits")
    func longTextsAreTruncated() throws {
        let event = SampleEvents.premium(summary: String(repeating: "ü", count: 5000))
        let discord = try JSONDecoder().decode(
            DiscordBody.self, from: WebhookBody.render(event, format: .discord, chatID: nil))
        let telegram = try JSONDecoder().decode(
            TelegramBody.self, from: WebhookBody.render(event, format: .telegram, chatID: "42"))
        #expect(discord.content.utf16.count == 2000)
        #expect(discord.content.hasSuffix("…"))
        #expect(telegram.text.utf16.count == 4096)
        #expect(telegram.text.hasPrefix("[WARNING] premium/global/BTC firing\nüü"))
    }

    /// The text of a chat body as the channel receives it.
    static func chatText(_ event: AlertEvent, format: WebhookFormat) throws -> String {
        let body = try WebhookBody.render(event, format: format, chatID: "42")
        switch format {
        case .slack: return try JSONDecoder().decode(SlackBody.self, from: body).text
        case .discord: return try JSONDecoder().decode(DiscordBody.self, from: body).content
        case .telegram: return try JSONDecoder().decode(TelegramBody.self, from: body).text
        case .json: return String(decoding: body, as: UTF8.self)
        case .ntfy: return try NtfyMessage.decode(body).message
        }
    }

    @Test(
        "every chat format stays within its limit and never splits a grapheme",
        arguments: ["👨‍👩‍👧‍👦", "🇹🇼", "e\u{301}", "👍🏽", "長", "a"])
    func truncationKeepsGraphemesWhole(cluster: String) throws {
        let event = SampleEvents.premium(summary: String(repeating: cluster, count: 9000))
        let header = "[WARNING] premium/global/BTC firing\n"
        for (format, limit) in [(WebhookFormat.discord, 2000), (.telegram, 4096), (.slack, 8000)] {
            let text = try Self.chatText(event, format: format)
            #expect(text.utf16.count <= limit && text.utf16.count > limit - 12, "\(format): \(text.utf16.count)")
            #expect(text.hasPrefix(header) && text.hasSuffix("…"), "\(format)")
            let body = text.dropFirst(header.count).dropLast()
            #expect(Set(body) == [Character(cluster)], "\(format): a cluster was cut")
            #expect(body.count == String(repeating: cluster, count: body.count).count)
        }
    }

    @Test("slack: escaping after the cut keeps every entity whole and the text under 40,000 characters")
    func slackEscapesAfterTheCut() throws {
        let event = SampleEvents.premium(summary: String(repeating: "<&>", count: 20_000))
        let text = try Self.chatText(event, format: .slack)
        #expect(text.count <= 40_000)
        #expect(text.hasSuffix("&lt;&amp;&gt;…") || text.hasSuffix("&lt;…") || text.hasSuffix("&lt;&amp;…"))
        #expect(!text.contains("<") && !text.contains(">"))
        // A text within the limit is sent whole.
        let short = try Self.chatText(SampleEvents.premium(summary: "a <b> & c"), format: .slack)
        #expect(short.hasSuffix("\n") == false && short.contains("a &lt;b&gt; &amp; c\n"))
    }

    @Test(
        "slack: a scalar that joins <, > or & into one grapheme does not carry it past the escaping",
        arguments: ["\u{301}", "\u{20DD}", "\u{200D}", "\u{FE0F}", "\u{600}", "\u{1F3FD}"])
    func slackEscapesOverScalars(joiner: String) throws {
        for special in ["<", ">", "&"] {
            let summary = "x \(joiner)\(special)\(joiner) <!channel\(joiner)>"
            let text = try Self.chatText(SampleEvents.premium(summary: summary), format: .slack)
            #expect(!text.unicodeScalars.contains("<") && !text.unicodeScalars.contains(">"), "\(Array(text.unicodeScalars))")
            // Every & left is the start of one of the three entities.
            let ampersands = text.unicodeScalars.indices.filter { text.unicodeScalars[$0] == "&" }
            // (Compared over scalars: String's own comparisons are by grapheme and would see "&amp;" + U+0301 as no "&amp;".)
            #expect(ampersands.allSatisfy { index in
                let rest = text.unicodeScalars[index...]
                return ["&amp;", "&lt;", "&gt;"].contains { rest.starts(with: $0.unicodeScalars) }
            })
            #expect(text.unicodeScalars.split(separator: "&").contains { $0.starts(with: "lt;!channel".unicodeScalars) })
        }
    }

    @Test("telegram without chat_id is an error, not a body")
    func telegramNeedsChatID() {
        #expect(throws: WebhookBody.RenderError.missingChatID) {
            try WebhookBody.render(SampleEvents.fx(), format: .telegram, chatID: nil)
        }
    }
}
