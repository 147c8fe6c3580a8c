import MarketAlertIO
import MarketAlertTestSupport
import Testing

@Suite struct HTTPStatusLifecycleTests {
    @Test func theBoundAddressJoinsEveryStatusLineAndALateBindResendsTheLast() {
        let base = RecordingLifecycle()
        let lifecycle = HTTPStatusLifecycle(base: base)
        lifecycle.status("waiting for binance")
        lifecycle.listening("127.0.0.1:41234")  // port 0: known only once bound
        lifecycle.status("ready: 2 exchanges ok")
        lifecycle.listening(nil)
        lifecycle.ready()
        #expect(base.statuses == [
            "waiting for binance", "waiting for binance; http 127.0.0.1:41234", "ready: 2 exchanges ok; http 127.0.0.1:41234",
            "ready: 2 exchanges ok",
        ])
        #expect(base.entries.last == "READY")
    }
}
