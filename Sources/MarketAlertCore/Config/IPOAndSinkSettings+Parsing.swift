import Foundation

extension IPOSettings {
    mutating func read(_ t: ConfigTable) {
        for item in t.list("sources") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            let name = sub.required("name", sub.string)
            if let name, name != "twse" { sub.error("name", "expected twse (the only IPO source so far), got \"\(name)\"") }
            var source = IPOSourceSettings(
                name: name ?? "twse", baseURL: sub.url("base_url") ?? URL(string: "https://www.twse.com.tw")!)  // literal
            if let value = sub.duration("poll_interval") {
                if value > .zero { source.pollInterval = value } else { sub.error("poll_interval", "must be greater than 0") }
            }
            if let value = sub.duration("timeout") {
                if value > .zero { source.timeout = value } else { sub.error("timeout", "must be greater than 0") }
            }
            if let zone = sub.string("time_zone") {
                if TimeZone(identifier: zone) != nil { source.timeZone = zone } else { sub.error("time_zone", "unknown time zone \"\(zone)\"") }
            }
            sub.finish()
            sources.append(source)
        }
        if let values = t.oneOfList("notify", as: IPONotification.self) { notify = Set(values) }
        if let patterns = t.stringList("exclude_name_patterns") { excludeNamePatterns = patterns.filter { !$0.isEmpty } }
        if let table = t.table("value") {
            var settings = IPOValueSettings()
            settings.read(table)
            value = settings.enabled ? settings : nil
        }
    }
}

extension SinkSettings {
    mutating func read(_ t: ConfigTable) {
        if let stdout = t.table("stdout") {
            if let enabled = stdout.bool("enabled") { stdoutEnabled = enabled }
            if let format = stdout.oneOf("format", as: StdoutFormat.self) { stdoutFormat = format }
            stdout.finish()
        }
        if let journal = t.table("journal") {
            if let enabled = journal.bool("enabled") { journalEnabled = enabled }
            journal.finish()
        }
        var names: Set<String> = []
        for item in t.list("webhooks") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            let name = sub.required("name", sub.string) ?? ""
            if !name.isEmpty, !names.insert(name).inserted { sub.error("name", "duplicate sink name \"\(name)\"") }
            var hook = WebhookSettings(name: name)
            hook.url = sub.url("url")
            hook.urlEnv = sub.string("url_env")
            if sub.has("url") == sub.has("url_env") { sub.error("url", "give exactly one of url or url_env") }
            if let format = sub.oneOf("format", as: WebhookFormat.self) { hook.format = format }
            hook.secretEnv = sub.string("secret_env")
            if let value = sub.duration("timeout") {
                if value > .zero { hook.timeout = value } else { sub.error("timeout", "must be greater than 0") }
            }
            if let value = sub.duration("max_age") {
                if value > .zero { hook.maxAge = value } else { sub.error("max_age", "must be greater than 0") }
            }
            if let kinds = sub.oneOfList("kinds", as: AlertKind.self) {
                if kinds.isEmpty { sub.error("kinds", "must list at least one kind") }
                hook.kinds = Set(kinds)
            }
            hook.chatID = sub.string("chat_id")
            if hook.format == .telegram, hook.chatID == nil { sub.error("chat_id", "format telegram needs chat_id") }
            hook.tokenEnv = sub.string("token_env")
            if let token = hook.tokenEnv, token.isEmpty || token.contains("/") || token.contains("=") {
                sub.error("token_env", "expected the name of an environment variable or credential, got \"\(token)\"")
            } else if hook.tokenEnv != nil, hook.format != .ntfy {
                sub.error("token_env", "only format ntfy sends a bearer token")
            }
            sub.finish()
            webhooks.append(hook)
        }
        for item in t.list("email") ?? [] {  // v3; names shared with webhooks (routes name sinks)
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            email.append(EmailSettings.read(sub, names: &names))
        }
    }
}

extension SourceAlertSettings {
    mutating func read(_ t: ConfigTable) {
        if let value = t.integer("after_failures") {
            if value >= 1 { afterFailures = value } else { t.error("after_failures", "must be at least 1") }
        }
        if let value = t.duration("after_silence") {
            if value > .zero { afterSilence = value } else { t.error("after_silence", "must be greater than 0") }
        }
        if let value = t.oneOf("severity", as: Severity.self) { severity = value }
    }
}
