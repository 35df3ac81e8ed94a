import Crypto
import Foundation
import Runtime

/// What Apple's token and revoke endpoints need: the team, the key and its private half
/// (`APPLE_TEAM_ID`, `APPLE_KEY_ID`, `APPLE_PRIVATE_KEY_FILE`), and where the endpoints are.
public struct AppleCredentials: Sendable {
    /// The Apple developer team ID (`iss` of the client secret).
    public var teamID: String
    /// The Sign in with Apple key's ID (`kid` of the client secret).
    public var keyID: String
    /// The key's private half (Apple's `.p8`, a P-256 PKCS#8 PEM).
    public var privateKey: PrivateKey
    /// `APPLE_TOKEN_URL`. Default `https://appleid.apple.com/auth/token`.
    public var tokenURL: String = "https://appleid.apple.com/auth/token"
    /// `APPLE_REVOKE_URL`. Default `https://appleid.apple.com/auth/revoke`.
    public var revokeURL: String = "https://appleid.apple.com/auth/revoke"
    /// How long each client secret is valid (at most six months). Default 30 days.
    public var clientSecretLifetime: Duration = .seconds(30 * 86_400)

    /// Credentials with the default endpoints.
    public init(teamID: String, keyID: String, privateKey: PrivateKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
    }

    /// Reads the private key file; fails naming `APPLE_PRIVATE_KEY_FILE` when it cannot be used.
    public static func loadPrivateKey(path: String) throws(ConfigurationError) -> PrivateKey {
        let variable = "APPLE_PRIVATE_KEY_FILE"
        // A regular file of at most 16 KiB (a .p8 is about 250 bytes), read through links.
        let data = try EnvironmentReader.readSecretFile(path, variable: variable, maxBytes: 16 * 1024)
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: String(decoding: data, as: UTF8.self))
        } catch {
            throw ConfigurationError(variable: variable, problem: "'\(path)' is not an unencrypted PEM private key")
        }
        guard key.kind == .p256 else {
            throw ConfigurationError(variable: variable, problem: "'\(path)' holds a \(key.kind) key, not Apple's P-256 key")
        }
        return key
    }
}
