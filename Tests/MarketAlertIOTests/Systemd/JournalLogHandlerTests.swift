import Foundation
import Logging
import MarketAlertIO
import Testing

@Suite("Journal log handler")
struct JournalLogHandlerTests {
    private typealias Entry = [(String, String)]

    /// A logger whose journal handler records each entry's fields instead of sending them
    /// (no `LoggingSystem.bootstrap`, which may run only once per process).
    private func makeLogger(
        label: String = "marketalertd.test", level: Logger.Level = .trace,
        provider: Logger.MetadataProvider? = nil
    ) -> (Logger, Recorder<Entry>) {
        let recorder = Recorder<Entry>()
        let logger = Logger(label: label) { label in
            JournalLogHandler(label: label, logLevel: level, metadataProvider: provider, write: { recorder.append($0) })
        }
        return (logger, recorder)
    }

    private func value(_ name: String, in fields: Entry) -> String? {
        let values = fields.filter { $0.0 == name }.map(\.1)
        #expect(values.count <= 1, "\(name) appears \(values.count) times")
        return values.first
    }

    @Test("an entry carries message, priority, identifier and code location")
    func basicFields() throws {
        let (logger, recorder) = makeLogger()
        logger.warning("source failed")
        let line = #line - 1
        let entry = try #require(recorder.all.first)
        #expect(recorder.all.count == 1)
        #expect(value("MESSAGE", in: entry) == "source failed")
        #expect(value("PRIORITY", in: entry) == "4")
        #expect(value("SYSLOG_IDENTIFIER", in: entry) == "marketalertd")
        #expect(value("CODE_LINE", in: entry) == String(line))
        #expect(value("CODE_FILE", in: entry)?.hasSuffix("JournalLogHandlerTests.swift") == true)
        #expect(value("CODE_FUNC", in: entry) == "basicFields()")
        #expect(value("MARKETALERTD_LOGGER", in: entry) == "marketalertd.test")
        #expect(value("MARKETALERTD_MODULE", in: entry) == "MarketAlertIOTests")
        #expect(value("UNIT", in: entry) == nil)
        for (name, _) in entry { #expect(JournalFieldName.isValid(name), "\(name)") }
    }

    @Test(
        "levels map to syslog priorities",
        arguments: [
            (Logger.Level.trace, "7"), (.debug, "7"), (.info, "6"), (.notice, "5"), (.warning, "4"), (.error, "3"),
            (.critical, "2"),
        ])
    func priorities(level: Logger.Level, priority: String) throws {
        let (logger, recorder) = makeLogger()
        logger.log(level: level, "x")
        #expect(value("PRIORITY", in: try #require(recorder.all.first)) == priority)
    }

    @Test("metadata becomes sanitized, prefixed fields; handler, provider and call metadata merge (call wins)")
    func metadata() throws {
        let provider = Logger.MetadataProvider { ["trace-id": "abc", "sl-service": "provider"] }
        var (logger, recorder) = makeLogger(provider: provider)
        logger[metadataKey: "hb.request.id"] = "42"
        logger.info(
            "hello", metadata: ["sl-service": "Supervisor", "_private": "p", "count": .stringConvertible(3),
                                "list": ["a", "b"]])
        let entry = try #require(recorder.all.first)
        #expect(value("MARKETALERTD_HB_REQUEST_ID", in: entry) == "42")
        #expect(value("MARKETALERTD_TRACE_ID", in: entry) == "abc")
        #expect(value("MARKETALERTD_SL_SERVICE", in: entry) == "Supervisor")
        #expect(value("MARKETALERTD_PRIVATE", in: entry) == "p")
        #expect(value("MARKETALERTD_COUNT", in: entry) == "3")
        #expect(value("MARKETALERTD_LIST", in: entry) == #"["a", "b"]"#)
        for (name, _) in entry { #expect(JournalFieldName.isValid(name), "\(name)") }
    }

    @Test("an attached error is a field")
    func error() throws {
        struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }
        let (logger, recorder) = makeLogger()
        logger.error("failed", error: Boom())
        let entry = try #require(recorder.all.first)
        #expect(value("MARKETALERTD_ERROR", in: entry) == "boom")
    }

    @Test("log level and metadata are values: a copy's changes do not leak back")
    func valueSemantics() throws {
        var (first, recorder) = makeLogger(level: .info)
        first[metadataKey: "only-on"] = "first"
        var second = first
        second.logLevel = .error
        second[metadataKey: "only-on"] = "second"
        #expect(first.logLevel == .info)
        #expect(second.logLevel == .error)
        first.info("from first")
        second.info("dropped: below error")
        #expect(recorder.all.count == 1)
        #expect(value("MARKETALERTD_ONLY_ON", in: try #require(recorder.all.first)) == "first")
    }
}
