import Foundation

/// The libFuzzer entry point of `marketalertd-fuzz`, one binary for the fuzz targets (one build of the
/// sanitized dependency graph instead of three): `MARKETALERTD_FUZZ_TARGET=rest` (`FuzzREST`, the default),
/// `stream` (`FuzzStream`) or `config` (`FuzzConfig`) picks the target; each keeps its own corpus.
///
/// `scripts/fuzz` builds it with `-D FUZZING` and `--sanitize=fuzzer,address`: libFuzzer supplies `main`. In a
/// plain `swift build` it is a replayer for saved inputs (a crash reproducer without the fuzzer):
///     marketalertd-fuzz rest|stream|config FILE…
/// and writes the seeds of the registry's exchanges (`FuzzSeeds`), as the fuzzing build does at start when
/// `MARKETALERTD_FUZZ_SEEDS` names a directory:
///     marketalertd-fuzz seeds DIR [FIXTURES]
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

/// Writes the seeds into `output` and exits (0, or 1 when a fixture cannot be read).
func writeSeedsAndExit(to output: String, fixtures: String) -> Never {
    do {
        let counts = try FuzzSeeds.write(to: URL(fileURLWithPath: output), fixtures: URL(fileURLWithPath: fixtures))
        print("seeds: \(counts.rest) rest, \(counts.stream) stream in \(output)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("seeds: \(error)\n".utf8))
        exit(1)
    }
}

/// libFuzzer calls this once before fuzzing: with `MARKETALERTD_FUZZ_SEEDS=<dir>` the process writes the
/// seeds (from `MARKETALERTD_FUZZ_FIXTURES`, default `Tests/Fixtures`) and exits instead.
@_cdecl("LLVMFuzzerInitialize")
public func marketAlertFuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    if let output = environment["MARKETALERTD_FUZZ_SEEDS"] {
        writeSeedsAndExit(to: output, fixtures: environment["MARKETALERTD_FUZZ_FIXTURES"] ?? "Tests/Fixtures")
    }
    return 0
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
        if arguments.first == "seeds", let output = arguments.dropFirst().first {
            writeSeedsAndExit(to: output, fixtures: arguments.dropFirst(2).first ?? "Tests/Fixtures")
        }
        guard let name = arguments.first, let target = FuzzEntry.target(named: name) else {
            FileHandle.standardError.write(Data("usage: marketalertd-fuzz rest|stream|config FILE…\n       marketalertd-fuzz seeds DIR [FIXTURES]\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            target(try Data(contentsOf: URL(fileURLWithPath: path)))
            print("\(path): ok")
        }
    }
}
#endif
