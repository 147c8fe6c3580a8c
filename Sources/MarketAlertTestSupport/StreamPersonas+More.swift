import Foundation

extension StreamPersonas {
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
