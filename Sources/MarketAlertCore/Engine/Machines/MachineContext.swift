import Foundation

/// What every engine machine is given with an input: the settings in force, the time of the input, and the
/// source of event ids. Built by the router (`AlertEngine`) for inputs that are not stream quotes; the quote
/// path passes what it needs explicitly, so nothing is copied per quote.
struct MachineContext {
    let settings: Settings
    let now: Date
    let makeID: @Sendable () -> String
}

extension AlertEngine {
    func context(_ now: Date) -> MachineContext { MachineContext(settings: settings, now: now, makeID: makeID) }
}
