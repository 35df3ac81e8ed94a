import Collections
import Foundation
import Testing

/// Nothing the images, compose or the scripts build or run with assumes one CPU architecture: the
/// official base images are multi-arch, so the same build runs natively on Apple silicon (arm64)
/// and on x86-64 (deploy/README.md).
@Suite("Both architectures: no architecture-specific path in the build and run files")
struct ArchitectureTests {
    /// Words that tie a file to one architecture: Debian's multiarch library directories, a Docker
    /// platform, an architecture's package suffix or name. Spelt in pieces so this file does not
    /// match itself.
    static let patterns: [String] = [
        "x86" + "_64", "x86" + "-64", "aarch" + "64", "amd" + "64", "arm" + "64", "i" + "386", "i" + "686",
        "linux-" + "gnu", "--plat" + "form", "plat" + "form:",
    ]

    /// The files that build, configure or run the stack: under `root`, the compose file, the
    /// Package.swift, the root .dockerignore, and every file under deploy/ and .ci/ but the
    /// documentation (which may name the architectures it speaks of) and local run state.
    static func buildAndRunFiles(under root: URL) -> [String] {
        var files = ["docker-compose.yml", "Package.swift", ".dockerignore"]
            .filter { FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path) }
        for folder in ["deploy", ".ci"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            while let relative = walker.nextObject() as? String {
                var isDirectory: ObjCBool = false
                let path = base.appendingPathComponent(relative).path
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    // Never entered: deploy/local/.run holds a Python environment of some 19,000 files (and a
                    // running test's servers), whose walk held Swift's two cooperative threads for seconds
                    // and so timed out the in-process dev-idp's answers to the suites running beside.
                    if [".run", ".secrets", "__pycache__"].contains((relative as NSString).lastPathComponent) { walker.skipDescendants() }
                    continue
                }
                guard !relative.hasSuffix(".md") else { continue }
                files.append("\(folder)/\(relative)")
            }
        }
        return files.sorted()
    }

    /// Each line of those files that holds one of the patterns, as `path:line: text`.
    static func architectureSpecificLines(under root: URL) -> [String] {
        var found: [String] = []
        for file in buildAndRunFiles(under: root) {
            guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let lowered = line.lowercased()
                // firstRange(of:) is the standard library's search; Foundation's contains(_:), which
                // Foundation's import makes `contains` mean here, took seconds over these files.
                if patterns.contains(where: { lowered.firstRange(of: $0) != nil }) { found.append("\(file):\(number + 1): \(line)") }
            }
        }
        return found
    }

    @Test("the repository's build and run files name no architecture")
    func treeIsArchitectureFree() async throws {
        // On a thread of its own: the scan held Swift's cooperative threads for seconds (DocumentLinkTests says more).
        let (files, lines) = try await BlockingCall.run {
            (Self.buildAndRunFiles(under: DeployFiles.root), Self.architectureSpecificLines(under: DeployFiles.root))
        }
        #expect(files.contains("deploy/docker/Dockerfile") && files.contains("docker-compose.yml") && files.contains("deploy/local/lib.sh"),
                "the scan misses the files it is for: \(files)")
        #expect(lines.isEmpty, "\(lines.joined(separator: "\n"))")
    }

    @Test("a planted multiarch library path in a script, or a platform in compose, is found; a .md file is not scanned",
          arguments: [("deploy/docker/Dockerfile", "COPY --from=build /usr/lib/x86" + "_64-linux-gnu/libnats.so /usr/lib/\n", true),
                      ("docker-compose.yml", "services:\n  gateway:\n    plat" + "form: linux/amd" + "64\n", true),
                      ("deploy/local/lib.sh", "export LD_LIBRARY_PATH=/usr/lib/aarch" + "64-linux-gnu\n", true),
                      ("deploy/README.md", "Built and run here on amd" + "64.\n", false)])
    func plantedPathIsFound(_ file: String, _ text: String, _ found: Bool) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("architecture-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let url = root.appendingPathComponent(file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        let lines = Self.architectureSpecificLines(under: root)
        #expect(lines.isEmpty == !found, "\(file): \(lines)")
        if found { #expect(lines.first?.hasPrefix("\(file):") == true, "\(lines)") }
    }
}
