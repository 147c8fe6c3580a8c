import Foundation

/// Validates JSON documents against `alert-event.schema.json` with Python's `jsonschema` (Draft 2020-12,
/// format checks on), an implementation independent of ours. Returns one error line per invalid document.
package enum SchemaValidator {
    package struct Unavailable: Error, CustomStringConvertible {
        package var description: String
    }

    package static func validateAlertEvents(_ lines: [String]) async throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("events.jsonl")
        try lines.joined(separator: "\n").write(to: input, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator, FormatChecker
            schema = json.load(open(sys.argv[1]))
            validator = Draft202012Validator(schema, format_checker=FormatChecker())
            bad = 0
            for number, line in enumerate(open(sys.argv[2]), 1):
                line = line.strip()
                if not line:
                    continue
                for error in validator.iter_errors(json.loads(line)):
                    bad += 1
                    print(f"line {number}: {error.json_path}: {error.message}")
            print(f"checked", file=sys.stderr)
            """
        // Through CommandRunner: no blocking wait on a concurrency thread, no pipe that can fill up.
        let result = try await CommandRunner.run(
            ["/usr/bin/env", "python3", "-c", script, Fixtures.url("spec/alert-event.schema.json").path, input.path])
        guard result.status == 0, result.stderr.contains("checked") else {
            throw Unavailable(description: "jsonschema validation did not run: \(result.stderr)")
        }
        return result.stdout.split(separator: "\n").map(String.init)
    }
}
