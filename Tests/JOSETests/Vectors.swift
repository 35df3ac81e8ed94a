import Crypto
import Foundation
import JOSE
import Testing

/// Locates and reads the third-party test vectors in `shared/vectors`.
///
/// The package root's parent normally holds `shared/` (the main checkout and CI); a git worktree sits one or
/// more levels deeper, so the ancestors of the package root are searched in order, nearest first.
enum Vectors {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // JOSETests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    /// The vectors directory, or a test failure naming every place that was searched.
    static func directory() throws -> URL {
        var searched: [String] = []
        var candidate = packageRoot.deletingLastPathComponent()
        while true {
            let vectors = candidate.appendingPathComponent("shared/vectors")
            searched.append(vectors.path)
            if FileManager.default.fileExists(atPath: vectors.appendingPathComponent("README.md").path) {
                return vectors
            }
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { break }
            candidate = parent
        }
        Issue.record("Test vectors not found: expected shared/vectors beside the package root. Searched: \(searched.joined(separator: ", "))")
        throw VectorsMissing()
    }

    struct VectorsMissing: Error {}

    /// The bytes of a file under the vectors directory.
    static func data(_ relativePath: String) throws -> Data {
        let url = try directory().appendingPathComponent(relativePath)
        do {
            return try Data(contentsOf: url)
        } catch {
            Issue.record("Cannot read test vector file \(url.path): \(error)")
            throw error
        }
    }

    /// A vector file decoded as `T`.
    static func load<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
        try JSONDecoder().decode(T.self, from: data(relativePath))
    }
}

/// Small helpers shared by the suites.
enum Fixture {
    static func hex(_ text: String) throws -> [UInt8] {
        try #require(Hex.decode(text), "bad hex in vector")
    }

    static func b64(_ text: String?) throws -> [UInt8] {
        try #require(text.flatMap { Base64URL.decode($0) }, "bad base64url in vector")
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A date from seconds since 1970.
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
