import Foundation
import JSON
import TestSupport

/// The deployment files of the repository, read and parsed for the tests: YAML through
/// Debian's python3-yaml (run off the cooperative pool), as JSON values.
enum DeployFiles {
    /// The repository root (this file is `Tests/DeployTests/DeployFiles.swift`).
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Debian's Python, which has python3-yaml (deploy/local/lib.sh installs it).
    static let python = "/usr/bin/python3"

    /// Every `*.yaml` file under `deploy/k8s`, relative to the root, sorted.
    static func kubernetesFiles() throws -> [String] {
        let folder = root.appendingPathComponent("deploy/k8s")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .sorted()
            .map { "deploy/k8s/\($0)" }
    }

    /// The YAML documents of each file (paths relative to the root), parsed with `yaml.safe_load_all`.
    static func parse(_ paths: [String]) async throws -> [String: [JSONValue]] {
        let script = """
            import json, sys, yaml
            out = {}
            for path in sys.argv[1:]:
                with open(path) as f:
                    out[path] = [d for d in yaml.safe_load_all(f) if d is not None]
            json.dump(out, sys.stdout)
            """
        let result = try await runProcess(python, ["-c", script] + paths, workingDirectory: root.path)
        guard result.status == 0 else { throw DeployTestError("YAML did not parse: \(result.error)") }
        return try MessageCoding.decode([String: [JSONValue]].self, from: Array(result.output.utf8))
    }

    /// A text file of the repository.
    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }
}

/// Why a deployment file could not be checked.
struct DeployTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// The member `key` of an object, or nil.
    subscript(_ key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The elements of an array, or empty.
    var elements: [JSONValue] {
        if case .array(let values) = self { values } else { [] }
    }

    /// The value at a dotted path of object members (`spec.template.spec`).
    func at(_ path: String) -> JSONValue? {
        path.split(separator: ".").reduce(Optional(self)) { value, key in value?[String(key)] }
    }
}
