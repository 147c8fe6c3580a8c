import Foundation
import Synchronization

/// How a test WebSocket server answers subscriptions, exchange by exchange: it checks each request has the
/// exchange's documented shape (a wrong request gets the exchange's in-band error, so a client bug shows up
/// as a test failure), then acks, refuses, or acks only part, as the knobs say; text pings get the
/// exchange's pong.
package final class StreamPersonaKnobs: Sendable {
    package enum Mode: Sendable, Equatable {
        /// Ack every subscription.
        case ack
        /// Answer every subscription with the exchange's in-band error.
        case reject
        /// Ack only the first market of each request (a partial ack).
        case partial
        /// Never answer subscriptions.
        case silent
    }

    private let state: Mutex<(mode: Mode, answerPings: Bool, refused: Set<String>)>

    package init(_ mode: Mode = .ack) { state = Mutex((mode, true, [])) }

    /// Markets (exchange ids) the exchange says do not exist, with its own error; the rest is acked.
    package var refused: Set<String> { state.withLock { $0.refused } }

    package func refuse(_ markets: Set<String>) { state.withLock { $0.refused = markets } }

    package var mode: Mode { state.withLock { $0.mode } }

    package func set(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// Whether the exchange's text pings get their pong (true by default).
    package var answerPings: Bool { state.withLock { $0.answerPings } }

    package func setAnswerPings(_ answer: Bool) { state.withLock { $0.answerPings = answer } }
}

package enum StreamPersonas {
    /// Parses a client message as a JSON object (nil for anything else).
    package static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// Parses a client message as a JSON array (nil for anything else).
    package static func array(_ text: String) -> [Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Any]
    }

    /// Binance: `{"method":"SUBSCRIBE","params":["btcusdt@bookTicker",…],"id":N}` → `{"result":null,"id":N}`.
    package static func binance(_ knobs: StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        { text, _ in
            guard let request = object(text), let id = request["id"] as? Int else {
                return [.text(#"{"error":{"code":3,"msg":"Invalid JSON: expected an object with an id"},"id":null}"#)]
            }
            guard request["method"] as? String == "SUBSCRIBE", let params = request["params"] as? [String], !params.isEmpty,
                  params.allSatisfy({ $0.range(of: #"^[a-z0-9]+@(bookTicker|ticker)$"#, options: .regularExpression) != nil })
            else {
                return [.text("{\"error\":{\"code\":2,\"msg\":\"Invalid request: unknown method or stream name\"},\"id\":\(id)}")]
            }
            switch knobs.mode {
            case .ack, .partial: return [.text("{\"result\":null,\"id\":\(id)}")]
            case .reject: return [.text("{\"error\":{\"code\":2,\"msg\":\"Invalid request: request limit exceeded\"},\"id\":\(id)}")]
            case .silent: return []
            }
        }
    }

    /// OKX: `{"op":"subscribe","args":[{"channel":"tickers","instId":"BTC-USDT"},…]}` → one
    /// `{"event":"subscribe","arg":{…},"connId":…}` per instrument; text `ping` → `pong`.
    package static func okx(_ knobs: StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        { text, _ in
            if text == "ping" { return knobs.answerPings ? [.text("pong")] : [] }
            let invalid = WebSocketTestServer.Reply.text(#"{"event":"error","code":"60012","msg":"Invalid request","connId":"a4d3ae55"}"#)
            guard let request = object(text), request["op"] as? String == "subscribe", let args = request["args"] as? [[String: Any]],
                  !args.isEmpty else { return [invalid] }
            var replies: [WebSocketTestServer.Reply] = []
            for (position, arg) in args.enumerated() {
                guard arg["channel"] as? String == "tickers", let instrument = arg["instId"] as? String,
                      instrument.range(of: #"^[A-Z0-9]+-[A-Z0-9]+$"#, options: .regularExpression) != nil
                else { return [invalid] }
                if knobs.refused.contains(instrument) {
                    replies.append(.text("{\"event\":\"error\",\"code\":\"60018\",\"msg\":\"Wrong URL or channel:tickers,instId:\(instrument) doesn't exist\",\"connId\":\"a4d3ae55\"}"))
                    continue
                }
                switch knobs.mode {
                case .ack:
                    replies.append(.text("{\"event\":\"subscribe\",\"arg\":{\"channel\":\"tickers\",\"instId\":\"\(instrument)\"},\"connId\":\"a4d3ae55\"}"))
                case .partial where position == 0:
                    replies.append(.text("{\"event\":\"subscribe\",\"arg\":{\"channel\":\"tickers\",\"instId\":\"\(instrument)\"},\"connId\":\"a4d3ae55\"}"))
                case .reject:
                    return [.text("{\"event\":\"error\",\"code\":\"60018\",\"msg\":\"Wrong URL or channel:tickers,instId:\(instrument) doesn't exist\",\"connId\":\"a4d3ae55\"}")]
                case .partial, .silent:
                    break
                }
            }
            return replies
        }
    }

    /// Bybit v5 spot: `{"req_id":…,"op":"subscribe","args":["orderbook.1.BTCUSDT","tickers.BTCUSDT",…]}` (at most
    /// 10 args) → `{"success":true,"ret_msg":"subscribe","conn_id":…,"req_id":…,"op":"subscribe"}`;
    /// `{"op":"ping"}` → `{"success":true,"ret_msg":"pong","conn_id":…,"op":"ping"}`.
    package static func bybit(_ knobs: StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        { text, _ in
            guard let request = object(text), let op = request["op"] as? String else {
                return [.text(#"{"success":false,"ret_msg":"error:request not json","conn_id":"cl9hh1rfv5v9","op":""}"#)]
            }
            let requestID = request["req_id"] as? String ?? ""
            if op == "ping" {
                return knobs.answerPings ? [.text(#"{"success":true,"ret_msg":"pong","conn_id":"cl9hh1rfv5v9","op":"ping"}"#)] : []
            }
            guard op == "subscribe", let args = request["args"] as? [String], !args.isEmpty, args.count <= 10,
                  args.allSatisfy({ $0.range(of: #"^(orderbook\.1|tickers)\.[A-Z0-9]+$"#, options: .regularExpression) != nil })
            else {
                return [.text("{\"success\":false,\"ret_msg\":\"error:args invalid or more than 10\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"subscribe\"}")]
            }
            if let refused = args.first(where: { knobs.refused.contains(String($0.split(separator: ".").last ?? "")) }) {
                return [.text("{\"success\":false,\"ret_msg\":\"Invalid symbol :[\(refused)]\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"subscribe\"}")]
            }
            switch knobs.mode {
            case .ack, .partial:
                return [.text("{\"success\":true,\"ret_msg\":\"subscribe\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"subscribe\"}")]
            case .reject:
                return [.text("{\"success\":false,\"ret_msg\":\"Invalid symbol :[\(args[0])]\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"subscribe\"}")]
            case .silent:
                return []
            }
        }
    }

    /// Upbit and Bithumb: `[{"ticket":…},{"type":"ticker","codes":[…]},{"type":"orderbook","codes":["KRW-BTC.1",…]},{"format":…}]`.
    /// No ack: like the real servers, the answer is a snapshot of the first requested ticker (binary for Upbit);
    /// errors are `{"error":{"name":…,"message":…}}`. Text `PING` → `{"status":"UP"}`.
    package static func upbitStyle(binary: Bool, format: String) -> @Sendable (StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        { knobs in
            { text, _ in
                func reply(_ text: String) -> WebSocketTestServer.Reply { binary ? .binary(Data(text.utf8)) : .text(text) }
                if text == "PING" { return knobs.answerPings ? [reply(#"{"status":"UP"}"#)] : [] }
                guard let request = array(text), let objects = request as? [[String: Any]], objects.first?["ticket"] is String else {
                    return [reply(#"{"error":{"name":"NO_TICKET","message":"ticket이 없습니다."}}"#)]
                }
                let ticker = objects.first { $0["type"] as? String == "ticker" }?["codes"] as? [String] ?? []
                let books = objects.first { $0["type"] as? String == "orderbook" }?["codes"] as? [String] ?? []
                guard !ticker.isEmpty, books == ticker.map({ "\($0).1" }), objects.last?["format"] as? String == format,
                      ticker.allSatisfy({ $0.range(of: #"^[A-Z]+-[A-Z0-9]+$"#, options: .regularExpression) != nil })
                else { return [reply(#"{"error":{"name":"WRONG_FORMAT","message":"요청 형식이 올바르지 않습니다."}}"#)] }
                switch knobs.mode {
                case .ack, .partial:
                    let snapshot = format == "SIMPLE"
                        ? "{\"ty\":\"ticker\",\"cd\":\"\(ticker[0])\",\"tp\":100.0,\"tms\":1618678262712,\"st\":\"SNAPSHOT\"}"
                        : "{\"type\":\"ticker\",\"code\":\"\(ticker[0])\",\"trade_price\":100,\"timestamp\":1725927377287,\"stream_type\":\"SNAPSHOT\"}"
                    return [reply(snapshot)]
                case .reject:
                    return [reply(#"{"error":{"name":"INVALID_PARAM","message":"지원하지 않는 값입니다."}}"#)]
                case .silent:
                    return []
                }
            }
        }
    }

    /// Kraken v2: `{"method":"subscribe","params":{"channel":"ticker","symbol":[…],"event_trigger":"bbo",…},"req_id":N}`
    /// → one `{"method":"subscribe","result":{"channel":"ticker","event_trigger":"bbo","snapshot":true,"symbol":…},"success":true,…}`
    /// per symbol; a refused symbol gets `{"error":…,"method":"subscribe","success":false,"symbol":…}`.
    package static func kraken(_ knobs: StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        { text, _ in
            guard let request = object(text), let method = request["method"] as? String else {
                return [.text(#"{"error":"Malformed request","method":"","success":false,"time_in":"2026-11-23T10:00:00.000000Z","time_out":"2026-11-23T10:00:00.000001Z"}"#)]
            }
            let requestID = request["req_id"] as? Int ?? 0
            if method == "ping" {
                return knobs.answerPings ? [.text("{\"method\":\"pong\",\"req_id\":\(requestID),\"time_in\":\"2026-11-23T10:00:00.000000Z\",\"time_out\":\"2026-11-23T10:00:00.000001Z\"}")] : []
            }
            guard method == "subscribe", let params = request["params"] as? [String: Any], params["channel"] as? String == "ticker",
                  params["event_trigger"] as? String == "bbo", let symbols = params["symbol"] as? [String], !symbols.isEmpty,
                  symbols.allSatisfy({ $0.range(of: #"^[A-Z0-9]+/[A-Z0-9]+$"#, options: .regularExpression) != nil })
            else {
                return [.text("{\"error\":\"Invalid request\",\"method\":\"subscribe\",\"req_id\":\(requestID),\"success\":false,\"time_in\":\"2026-11-23T10:00:00.000000Z\",\"time_out\":\"2026-11-23T10:00:00.000001Z\"}")]
            }
            return symbols.enumerated().compactMap { position, symbol -> WebSocketTestServer.Reply? in
                let ack = "{\"method\":\"subscribe\",\"result\":{\"channel\":\"ticker\",\"event_trigger\":\"bbo\",\"snapshot\":true,\"symbol\":\"\(symbol)\"},\"success\":true,\"time_in\":\"2026-11-23T10:00:00.000000Z\",\"time_out\":\"2026-11-23T10:00:00.000001Z\",\"req_id\":\(requestID)}"
                if knobs.refused.contains(symbol) {
                    return .text("{\"error\":\"Currency pair not supported \(symbol)\",\"method\":\"subscribe\",\"req_id\":\(requestID),\"success\":false,\"symbol\":\"\(symbol)\",\"time_in\":\"2026-11-23T10:00:00.000000Z\",\"time_out\":\"2026-11-23T10:00:00.000001Z\"}")
                }
                switch knobs.mode {
                case .ack: return .text(ack)
                case .partial: return position == 0 ? .text(ack) : nil
                case .reject:
                    return .text("{\"error\":\"Exceeded msg rate\",\"method\":\"subscribe\",\"req_id\":\(requestID),\"success\":false,\"symbol\":\"\(symbol)\",\"time_in\":\"2026-11-23T10:00:00.000000Z\",\"time_out\":\"2026-11-23T10:00:00.000001Z\"}")
                case .silent: return nil
                }
            }
        }
    }

    /// Coinbase Exchange: `{"type":"subscribe","product_ids":[…],"channels":["ticker","heartbeat"]}` → one
    /// `{"type":"subscriptions","channels":[{"name":"ticker","product_ids":[…]},{"name":"heartbeat","product_ids":[…]}]}`
    /// (a partial answer lists only the first product); refusal: `{"type":"error","message":…,"reason":…}`.
    package static func coinbase(_ knobs: StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        { text, _ in
            guard let request = object(text), request["type"] as? String == "subscribe", let products = request["product_ids"] as? [String],
                  !products.isEmpty, Set(request["channels"] as? [String] ?? []) == ["ticker", "heartbeat"],
                  products.allSatisfy({ $0.range(of: #"^[A-Z0-9]+-[A-Z0-9]+$"#, options: .regularExpression) != nil })
            else { return [.text(#"{"type":"error","message":"Failed to subscribe","reason":"Type has to be either subscribe or unsubscribe"}"#)] }
            func answer(_ listed: [String]) -> WebSocketTestServer.Reply {
                let ids = listed.map { "\"\($0)\"" }.joined(separator: ",")
                return .text("{\"type\":\"subscriptions\",\"channels\":[{\"name\":\"ticker\",\"product_ids\":[\(ids)]},{\"name\":\"heartbeat\",\"product_ids\":[\(ids)]}]}")
            }
            if let refused = products.first(where: knobs.refused.contains) {
                return [.text("{\"type\":\"error\",\"message\":\"Failed to subscribe\",\"reason\":\"\(refused) is not a valid product\"}")]
            }
            switch knobs.mode {
            case .ack: return [answer(products.reversed())]
            case .partial: return [answer([products[0]])]
            case .reject: return [.text("{\"type\":\"error\",\"message\":\"Failed to subscribe\",\"reason\":\"\(products[0]) is not a valid product\"}")]
            case .silent: return []
            }
        }
    }

    /// Bitget v2: `{"op":"subscribe","args":[{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},…]}` →
    /// `{"event":"subscribe","arg":{…}}` per arg; text `ping` → `pong`.
    package static func bitget(_ knobs: StreamPersonaKnobs) -> WebSocketTestServer.Persona {
        { text, _ in
            if text == "ping" { return knobs.answerPings ? [.text("pong")] : [] }
            let invalid = WebSocketTestServer.Reply.text(#"{"event":"error","code":30016,"msg":"param error","op":"subscribe"}"#)
            guard let request = object(text), request["op"] as? String == "subscribe", let args = request["args"] as? [[String: Any]],
                  !args.isEmpty, args.count <= 50 else { return [invalid] }
            var replies: [WebSocketTestServer.Reply] = []
            for (position, arg) in args.enumerated() {
                guard arg["instType"] as? String == "SPOT", arg["channel"] as? String == "ticker", let instrument = arg["instId"] as? String,
                      instrument.range(of: #"^[A-Z0-9]+$"#, options: .regularExpression) != nil
                else { return [invalid] }
                let echo = "{\"instType\":\"SPOT\",\"channel\":\"ticker\",\"instId\":\"\(instrument)\"}"
                if knobs.refused.contains(instrument) {
                    replies.append(.text("{\"event\":\"error\",\"arg\":\(echo),\"code\":30001,\"msg\":\"instType:SPOT,channel:ticker,instId:\(instrument) doesn't exist\",\"op\":\"subscribe\"}"))
                    continue
                }
                switch knobs.mode {
                case .ack: replies.append(.text("{\"event\":\"subscribe\",\"arg\":\(echo)}"))
                case .partial where position == 0: replies.append(.text("{\"event\":\"subscribe\",\"arg\":\(echo)}"))
                case .reject:
                    return [.text("{\"event\":\"error\",\"arg\":\(echo),\"code\":30001,\"msg\":\"instType:SPOT,channel:ticker,instId:\(instrument) doesn't exist\",\"op\":\"subscribe\"}")]
                case .partial, .silent: break
                }
            }
            return replies
        }
    }
}
