import Foundation

extension SchemaValidator {
    /// Validates JSON documents against one definition inside `alert-event.schema.json` (a JSON pointer such
    /// as `/$defs/premium/properties/executable`: the API's documents that carry the event's objects), with
    /// Python's `jsonschema` as `validateAlertEvents`. Returns one error line per problem; throws when the
    /// pointer names nothing.
    package static func validate(_ documents: [String], definition pointer: String) async throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("documents.jsonl")
        try documents.joined(separator: "\n").write(to: input, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator, FormatChecker
            schema = json.load(open(sys.argv[1]))
            target = schema
            for part in sys.argv[3].strip("/").split("/"):
                target = target[part]
            wrapper = {key: value for key, value in schema.items() if key in ("$schema", "$id", "$defs")}
            wrapper["$ref"] = "#" + sys.argv[3]
            validator = Draft202012Validator(wrapper, format_checker=FormatChecker())
            for number, line in enumerate(open(sys.argv[2]), 1):
                line = line.strip()
                if not line:
                    continue
                for error in validator.iter_errors(json.loads(line)):
                    print(f"document {number}: {error.json_path}: {error.message}")
            print(f"checked", file=sys.stderr)
            """
        let result = try await CommandRunner.run(
            ["/usr/bin/env", "python3", "-c", script, Fixtures.url("spec/alert-event.schema.json").path, input.path, pointer])
        guard result.status == 0, result.stderr.contains("checked") else {
            throw Unavailable(description: "jsonschema validation did not run: \(result.stderr)")
        }
        return result.stdout.split(separator: "\n").map(String.init)
    }
}
