import Management
import Messaging
import NATS
import Contracts

/// The token-verifier's settings.
public struct TokenVerifierConfiguration: Sendable {
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// How it signs in to NATS: its nkey, TLS (`NATS_NKEY_SEED_FILE`, `NATS_TLS_*`) and its own inbox prefix.
    public var natsAccess = NATSConnection.Access(inboxPrefix: BusIdentity.tokenVerifier.inboxPrefix)
    /// The enabled OpenID Connect providers (Google, Apple, Kakao), by provider.
    public var providers: [Provider: OIDCProviderConfiguration] = [:]
    /// Naver, enabled when `NAVER_CLIENT_ID` and `NAVER_CLIENT_SECRET` are set.
    public var naver: NaverConfiguration?
    /// Apple's code exchange and revocation, enabled when `APPLE_TEAM_ID`, `APPLE_KEY_ID` and
    /// `APPLE_PRIVATE_KEY_FILE` are set.
    public var appleCredentials: AppleCredentials?
    /// The AES-256 key that seals provider credentials (`PROVIDER_TOKEN_KEY`, base64 or base64url of 32 bytes).
    /// Unset: no credential is kept, so no grant can be revoked on account deletion.
    public var providerTokenKey: [UInt8]?
    /// The providers whose logins and links must carry a server nonce (`REQUIRE_SERVER_NONCE`, among
    /// `google`, `apple`, `kakao`): issued for the same device, unexpired, matching the ID token's `nonce`,
    /// never used before. Needs `PROVIDER_TOKEN_KEY` (the nonces' key is derived from it). Default none.
    public var requireServerNonce: Set<Provider> = []
    /// Leeway for `exp`, `nbf` and `iat` (`CLOCK_SKEW`). Default 60 s.
    public var clockSkew: Duration = .seconds(60)
    /// Timeout of each call to a provider (`PROVIDER_TIMEOUT`). Default 3 s, under the gateway's
    /// 5 s, so a slow provider is a 502 and not a gateway timeout.
    public var providerTimeout: Duration = .seconds(3)

    /// The defaults: no provider enabled.
    /// The management port (`MANAGEMENT_PORT`, `MANAGEMENT_HOST`): `/metrics`, `/healthz`, `/readyz`. Default off.
    public var management = ManagementConfiguration()
    /// The limits the events stream is created with (`EVENTS_MAX_AGE`, `EVENTS_REPLICAS`).
    public var events = EventStreamSettings()

    public init() {}
}
