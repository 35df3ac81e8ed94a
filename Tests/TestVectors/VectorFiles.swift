import Crypto
import Foundation
import JOSE
import Testing

/// Locates and reads the third-party test vectors in `Tests/Vectors` (their origins and licences are in
/// `Tests/Vectors/README.md`).
public enum VectorFiles {
    /// The root of this package.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestVectors
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    /// The vectors directory, or a test failure naming where it was expected.
    public static func directory() throws -> URL {
        let vectors = packageRoot.appendingPathComponent("Tests/Vectors")
        guard FileManager.default.fileExists(atPath: vectors.appendingPathComponent("README.md").path) else {
            Issue.record("Test vectors not found at \(vectors.path)")
            throw VectorsMissing()
        }
        return vectors
    }

    /// The vectors directory is not where it should be.
    public struct VectorsMissing: Error {}

    /// The bytes of a file under the vectors directory.
    public static func data(_ relativePath: String) throws -> Data {
        let url = try directory().appendingPathComponent(relativePath)
        do {
            return try Data(contentsOf: url)
        } catch {
            Issue.record("Cannot read test vector file \(url.path): \(error)")
            throw error
        }
    }

    /// A vector file decoded as `T`.
    public static func load<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
        try JSONDecoder().decode(T.self, from: data(relativePath))
    }
}

/// `provider-tokens/provider-tokens.json`: real provider-signed tokens with their keys and the
/// window in which each was valid.
public struct ProviderTokenVectors: Decodable, Sendable {
    /// When a token was valid.
    public struct Window: Decodable, Sendable {
        public let from_inclusive: Int64
        public let until_exclusive: Int64
        public let suggested_now: Int64
    }

    /// One token and how to check it.
    public struct Token: Decodable, Sendable {
        public let id: String
        public let token: String
        public let alg: String
        public let kid: String
        public let expected_iss: String
        public let expected_aud: String
        public let iat: Int64
        public let exp: Int64
        public let valid_now_window: Window
        public let key_file: String?
        public let key_id_in_file: String?
        public let jwk: JWK?
    }

    /// Every token listed.
    public let tokens: [Token]

    /// The tokens, read from the vectors directory.
    public static func load() throws -> [Token] {
        try VectorFiles.load(ProviderTokenVectors.self, "provider-tokens/provider-tokens.json").tokens
    }

    /// The key set a token verifies with: its inline JWK, or the key file it names.
    public static func keySet(for token: Token) throws -> JWKSet {
        if let jwk = token.jwk { return JWKSet(keys: [jwk]) }
        guard let file = token.key_file else { throw VectorFiles.VectorsMissing() }
        return try VectorFiles.load(JWKSet.self, "provider-tokens/\(file)")
    }
}
