import Foundation
import MarketAlertTestSupport

/// Parses a `/metrics` exposition with the Python `prometheus_client` text parser (an implementation
/// independent of swift-prometheus): every sample with its family type, labels and value. A malformed
/// exposition makes the parser fail, and the test with it.
struct PrometheusText {
    struct Sample: Sendable, Equatable {
        var family: String
        var type: String
        var name: String
        var labels: [String: String]
        var value: Double
    }

    let samples: [Sample]

    struct ParseFailed: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String) async throws -> PrometheusText {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("metrics.txt")
        try text.write(to: input, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for sample in family.samples:
                    print(json.dumps({"family": family.name, "type": family.type, "name": sample.name,
                                      "labels": sample.labels, "value": sample.value}))
            """
        let result = try await CommandRunner.run(["python3", "-c", script, input.path], timeoutSeconds: 60)
        guard result.succeeded else { throw ParseFailed(description: "prometheus_client could not parse /metrics: \(result.stderr)\n\(text)") }
        let samples = try result.stdout.split(separator: "\n").map { line -> Sample in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            return Sample(
                family: object["family"] as? String ?? "", type: object["type"] as? String ?? "", name: object["name"] as? String ?? "",
                labels: object["labels"] as? [String: String] ?? [:], value: (object["value"] as? NSNumber)?.doubleValue ?? .nan)
        }
        return PrometheusText(samples: samples)
    }

    /// The value of sample `name` whose labels include `labels`, if exactly one matches.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
        return matching.count == 1 ? matching[0].value : nil
    }

    func type(of family: String) -> String? { samples.first { $0.family == family }?.type }
}
