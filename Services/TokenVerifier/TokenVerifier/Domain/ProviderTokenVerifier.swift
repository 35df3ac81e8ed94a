import Contracts

/// Proves one provider's tokens: an entry of the provider registry.
protocol ProviderTokenVerifier: Sendable {
    /// The identity the request's token proves, or the failure to answer with.
    func verify(_ request: VerifyRequest) async throws(ServiceFailure) -> VerifiedIdentity
}
