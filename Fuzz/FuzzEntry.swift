import Foundation

/// The libFuzzer entry point of `marketalertd-fuzz`, one binary for the fuzz targets (one build of the
/// sanitized dependency graph instead of three): `MARKETALERTD_FUZZ_TARGET=rest` (`FuzzREST`, the default),
/// `stream` (`FuzzStream`) or `config` (`FuzzConfig`) picks the target; each keeps its own corpus.
///
/// `scripts/fuzz` builds it with `-D FUZZING` and `--sanitize=fuzzer,address`: libFuzzer supplies `main`. In a
/// plain `swift build` it is a replayer for saved inputs (a crash reproducer without the fuzzer):
///     marketalertd-fuzz rest|stream|config FILE…
enum FuzzEntry {
    static func target(named name: String?) -> (@Sendable (Data) -> Void)? {
        switch name ?? "rest" {
        case "rest": FuzzREST.run
        case "config": FuzzConfig.run
        case "stream": FuzzStream.run
        default: nil
        }
    }

    static let selected: @Sendable (Data) -> Void = {
        let name = ProcessInfo.processInfo.environment["MARKETALERTD_FUZZ_TARGET"]
        guard let target = target(named: name) else {
            FileHandle.standardError.write(Data("MARKETALERTD_FUZZ_TARGET must be rest, stream or config\n".utf8))
            exit(2)
        }
        return target
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func marketAlertFuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzEntry.selected(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

#if !FUZZING
@main
enum Replay {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzEntry.target(named: name) else {
            FileHandle.standardError.write(Data("usage: marketalertd-fuzz rest|stream|config FILE…\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            target(try Data(contentsOf: URL(fileURLWithPath: path)))
            print("\(path): ok")
        }
    }
}
#endif
