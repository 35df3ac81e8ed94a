import Collections
import Foundation
import Testing

/// The documents a user reads (README.md, docs/, deploy/README.md, Client/README.md, Tests/README.md):
/// every relative link leads to a file of the repository, and a `#fragment` to a heading of it.
@Suite("Document links")
struct DocumentLinkTests {
    /// The Markdown files a user reads.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: DeployFiles.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        return ["README.md", "deploy/README.md", "Client/README.md", "Tests/README.md"] + docs
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().unicodeScalars.compactMap { scalar -> Character? in
            if scalar == " " { return "-" }
            if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return Character(scalar) }
            return nil
        })
    }

    /// The headings of a Markdown text: lines that start with `#`, outside fenced code blocks.
    static func headings(_ text: String) -> [String] {
        var inCode = false
        var headings: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { inCode.toggle() }
            if !inCode, line.hasPrefix("#") {
                headings.append(String(line.drop { $0 == "#" }).trimmingCharacters(in: .whitespaces))
            }
        }
        return headings
    }

    @Test("headings inside code blocks are not headings")
    func codeBlocks() {
        #expect(Self.headings("# Title\n```sh\n# a comment\n```\n## Next") == ["Title", "Next"])
    }

    @Test("every relative link leads to a file, and every fragment to a heading")
    func relativeLinks() async throws {
        // On a thread of its own: the scan held both of Swift's cooperative threads for seconds (with
        // ArchitectureTests, a 4 s stall of every suite beside it in a run with one core busy elsewhere).
        let (problems, checked) = try await BlockingCall.run { try Self.linkProblems() }
        #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
        #expect(checked > 10, "only \(checked) links checked")
    }

    /// What is wrong with the documents' relative links, and how many links were checked.
    static func linkProblems() throws -> (problems: [String], checked: Int) {
        let pattern = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var problems: [String] = []
        var checked = 0
        // Each target's anchors, read once: parsed anew for every link, they took seconds.
        var anchors: [URL: Set<String>] = [:]
        for document in try Self.documents() {
            let url = DeployFiles.root.appendingPathComponent(document)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                problems.append("\(document) is missing")
                continue
            }
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let link = String(text[Range(match.range(at: 1), in: text)!])
                if link.contains("://") || link.hasPrefix("mailto:") { continue }
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? url : url.deletingLastPathComponent().appendingPathComponent(parts[0]).standardizedFileURL
                checked += 1
                guard FileManager.default.fileExists(atPath: target.path) else {
                    problems.append("\(document): the link \(link) leads nowhere")
                    continue
                }
                if parts.count == 2, target.pathExtension == "md" {
                    if anchors[target] == nil {
                        anchors[target] = Set(Self.headings(try String(contentsOf: target, encoding: .utf8)).map(Self.anchor))
                    }
                    if anchors[target]?.contains(parts[1]) != true {
                        problems.append("\(document): no heading #\(parts[1]) in \(parts[0].isEmpty ? document : parts[0])")
                    }
                }
            }
        }
        return (problems, checked)
    }
}
