import Foundation
import Synchronization

/// How a test WebSocket server answers subscriptions, exchange by exchange (see `StreamPersonaKnobs`).
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
}
