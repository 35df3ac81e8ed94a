import Contracts
import Crypto
import JOSE
import JSON

/// Seals provider credentials with AES-256-GCM under `PROVIDER_TOKEN_KEY`, so the member-service
/// can store them without being able to read them. The provider and subject are authenticated
/// with the box: a credential moved to another identity does not open.
struct CredentialSealer: Sendable {
    private let key: [UInt8]

    /// A sealer with a 32-byte key.
    init(key: [UInt8]) {
        precondition(key.count == AESGCM.keyLength, "PROVIDER_TOKEN_KEY is checked to be 32 bytes at start")
        self.key = key
    }

    /// The credential sealed for `provider`'s user `subject`, base64url.
    func seal(_ credential: ProviderCredential, provider: Provider, subject: String) throws -> String {
        let plaintext = try MessageCoding.encode(credential)
        return Base64URL.encode(try AESGCM.seal(plaintext, key: key, associatedData: Self.context(provider, subject)))
    }

    /// The credential in a box made by `seal` for the same provider and subject; throws otherwise.
    func open(_ sealed: String, provider: Provider, subject: String) throws -> ProviderCredential {
        guard let box = Base64URL.decode(sealed) else { throw VerifierError.unreadableAnswer("a base64url sealed credential") }
        let plaintext = try AESGCM.open(box, key: key, associatedData: Self.context(provider, subject))
        return try MessageCoding.decode(ProviderCredential.self, from: plaintext)
    }

    private static func context(_ provider: Provider, _ subject: String) -> [UInt8] {
        Array("social-login/credential/v1/\(provider.rawValue)/\(subject)".utf8)
    }
}
