import AsyncHTTPClient
import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// Shared plumbing of the FX IO tests: a real HTTP client against `MockHTTPServer`, recording doubles for
/// the sink and the health reporter, and Dunamu bodies in the recorded shape.
enum FXTest {
    static func instant(_ date: String, _ time: String, _ zone: String) -> Date {
        guard let at = FXQuoteTime.local(date: date, time: time, zoneID: zone) else {
            fatalError("test time \(date) \(time) does not exist")  // test constants only
        }
        return at
    }

    static let quiet = Logger(label: "fx-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` with a started server and an HTTP client, shutting both down afterwards.
    static func withServer<R>(
        clock: any DaemonClock = SystemClock(), _ body: (MockHTTPServer, HTTPFetcher) async throws -> R
    ) async throws -> R {
        let server = try await MockHTTPServer()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            let result = try await body(server, AsyncHTTPFetcher(client: client, clock: clock))
            try await client.shutdown()
            await server.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            await server.shutdown()
            throw error
        }
    }

    /// A `/v1/forex/recent` body with the recorded field set (2021 fixture), with the given values.
    static func dunamuBody(date: String, time: String, price: String, changeRate: String? = nil, changePrice: String? = nil) -> String {
        let rate = changeRate.map { ",\"changeRate\":\($0),\"signedChangeRate\":\($0)" } ?? ""
        let change = changePrice.map { ",\"changePrice\":\($0),\"signedChangePrice\":\($0)" } ?? ""
        return """
            [{"code":"FRX.KRWUSD","currencyCode":"USD","currencyName":"달러","country":"미국","name":"미국 (KRW/USD)",\
            "date":"\(date)","time":"\(time)","recurrenceCount":100,"basePrice":\(price),"currencyUnit":1,\
            "provider":"하나은행","timestamp":1628852510337\(rate)\(change)}]
            """
    }

    static func oxrBody(timestamp: Int, rates: [String: String]) -> String {
        let list = rates.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ",\n    ")
        return "{\n  \"disclaimer\": \"Usage subject to terms: https://openexchangerates.org/terms\",\n  \"timestamp\": \(timestamp),\n  \"base\": \"USD\",\n  \"rates\": {\n    \(list)\n  }\n}"
    }

    static func frankfurterBody(date: String, rates: [String: String]) -> String {
        let list = rates.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",")
        return "{\"amount\":1.0,\"base\":\"USD\",\"date\":\"\(date)\",\"rates\":{\(list)}}"
    }
}
