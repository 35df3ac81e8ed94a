import JOSE

/// Where a verifier gets a provider's public keys: the JWKS cache in production, a fixed key
/// set in tests that pin keys and time.
protocol VerificationKeySource: Sendable {
    /// The key set to verify a token whose header names `kid`; throws when no keys can be had.
    func keys(for kid: String?) async throws -> VerificationKeySet
}

/// A fixed key set, for verifying against keys known in advance (recorded provider tokens).
struct StaticKeySource: VerificationKeySource {
    let set: VerificationKeySet

    func keys(for kid: String?) async throws -> VerificationKeySet { set }
}
