import Foundation

extension FXSettings {
    mutating func read(_ t: ConfigTable) {
        if let value = t.duration("poll_interval") {
            if value > .zero { pollInterval = value } else { t.error("poll_interval", "must be greater than 0") }
        }
        if let value = t.duration("max_age") {
            if value > .zero { maxAge = value } else { t.error("max_age", "must be greater than 0") }
        }
        if let value = t.duration("timeout") {
            if value > .zero { timeout = value } else { t.error("timeout", "must be greater than 0") }
        }
        if let value = t.number("max_move_pct") {
            if value > 0 { maxMovePct = value } else { t.error("max_move_pct", "must be greater than 0") }
        }
        for item in t.list("providers") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            let kind = sub.required("name") { sub.oneOf($0, as: FXProviderKind.self) }
            let url = sub.url("base_url")
            let appIDEnv = sub.string("app_id_env")
            if let kind, kind != .openexchangerates, appIDEnv != nil {
                sub.error("app_id_env", "only openexchangerates takes an app id")
            }
            if kind == .openexchangerates, appIDEnv == nil {
                sub.error("app_id_env", "openexchangerates needs app_id_env (the secret's name)")
            }
            sub.finish()
            guard let kind else { continue }
            if providers.contains(where: { $0.kind == kind }) { sub.error("name", "provider \(kind.rawValue) listed twice") }
            providers.append(FXProviderSettings(kind: kind, baseURL: url ?? Settings.defaultBaseURL(kind), appIDEnv: appIDEnv))
        }
        readUSDTKRW(t)
        for item in t.list("alerts") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            if readTetherAlert(sub) { continue }
            let pair = sub.required("pair", sub.string)
            let change = sub.required("change_pct", sub.number)
            sub.finish()
            guard let pair, let change else { continue }
            let parts = pair.split(separator: "/").map(String.init)
            guard parts.count == 2, parts.allSatisfy({ $0.count == 3 }) else {
                sub.error("pair", "expected BASE/QUOTE such as USD/KRW, got \"\(pair)\"")
                continue
            }
            if change <= 0 { sub.error("change_pct", "must be greater than 0") }
            alerts.append(FXAlertSettings(base: parts[0].uppercased(), quote: parts[1].uppercased(), changePct: change))
        }
    }
}
