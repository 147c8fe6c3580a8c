import Foundation
import Logging
import MarketAlertIO
import Testing

@Suite("Stderr log handler")
struct StderrLogHandlerTests {
    private static let fixedNow = Date(timeIntervalSince1970: 1_773_110_820.125)  // 2026-03-10T02:47:00.125Z (exact in binary)

    private func makeLogger() -> (Logger, Recorder<String>) {
        let recorder = Recorder<String>()
        let logger = Logger(label: "marketalertd.supervisor") { label in
            StderrLogHandler(label: label, logLevel: .trace, now: { Self.fixedNow }, write: { recorder.append($0) })
        }
        return (logger, recorder)
    }

    @Test("one line: UTC timestamp, level, label, message, sorted metadata")
    func format() {
        let (logger, recorder) = makeLogger()
        logger.warning("source failed", metadata: ["source": "bithumb", "error": "timeout"])
        #expect(recorder.all == ["2026-03-10T02:47:00.125Z warning marketalertd.supervisor: source failed error=timeout source=bithumb"])
    }

    @Test("newlines and control characters cannot split a line")
    func escaping() throws {
        let (logger, recorder) = makeLogger()
        logger.info("two\nlines", metadata: ["body": "a\r\nb\u{1B}[31m"])
        let line = try #require(recorder.all.first)
        #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\u{1B}"))
        #expect(line.hasSuffix(#"two\nlines body=a\r\nb\u{1b}[31m"#))
        #expect(StderrLogHandler.escape("plain text ✓ 김치") == "plain text ✓ 김치")
    }
}
