import Contracts

/// The token-verifier's settings.
public struct TokenVerifierConfiguration: Sendable {
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// The enabled OpenID Connect providers (Google, Apple, Kakao), by provider.
    public var providers: [Provider: OIDCProviderConfiguration] = [:]
    /// Leeway for `exp`, `nbf` and `iat` (`CLOCK_SKEW`). Default 60 s.
    public var clockSkew: Duration = .seconds(60)
    /// Timeout of each call to a provider. Default 5 s.
    public var providerTimeout: Duration = .seconds(5)

    /// The defaults: no provider enabled.
    public init() {}
}
