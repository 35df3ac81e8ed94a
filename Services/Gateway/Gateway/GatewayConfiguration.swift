import IPAddresses
import Management
import Messaging
import NATS

/// The gateway's settings.
public struct GatewayConfiguration: Sendable {
    /// Address to listen on (`GATEWAY_HOST`). Default `0.0.0.0`.
    public var host: String = "0.0.0.0"
    /// Port to listen on (`GATEWAY_PORT`); 0 picks a free one. Default 8080.
    public var port: Int = 8080
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// How it signs in to NATS: its nkey, TLS (`NATS_NKEY_SEED_FILE`, `NATS_TLS_*`) and its own inbox prefix.
    public var natsAccess = NATSConnection.Access(inboxPrefix: BusIdentity.gateway.inboxPrefix)
    /// `iss` that access tokens must carry (`TOKEN_ISSUER`). Default `http://localhost:8080`.
    public var tokenIssuer: String = "http://localhost:8080"
    /// `aud` that access tokens must carry (`TOKEN_AUDIENCE`). Default `api`.
    public var tokenAudience: String = "api"
    /// Leeway for access-token times (`CLOCK_SKEW`). Default 60 s.
    public var clockSkew: Duration = .seconds(60)
    /// Largest request body. Default 64 KiB.
    public var maxBodySize: Int = 65_536
    /// How long the gateway waits for one service call. Default 5 s.
    public var serviceTimeout: Duration = .seconds(5)
    /// HTTP worker threads. Default 2.
    public var httpThreads: Int = 2
    /// Seconds a client connection may stay idle. Default 30 s.
    public var connectionTimeout: Duration = .seconds(30)
    /// Connections one client address may hold open (0: no limit). Default 64.
    public var connectionsPerAddress: Int = 64
    /// The issuer's refresh reuse grace window (`REFRESH_REUSE_GRACE`, default 10 s): a refresh
    /// is retried after a lost reply only when this outlasts `serviceTimeout` plus
    /// ``ServiceClient/failoverPatience``.
    public var refreshReuseGrace: Duration = .seconds(10)
    /// Requests a second per client address on `/api/auth/*` (`RATE_LIMIT_RPS`; 0 turns the limit off). Default 10.
    public var rateLimitRPS: Int = 10
    /// Burst allowance per client address (`RATE_LIMIT_BURST`). Default 20.
    public var rateLimitBurst: Int = 20
    /// How many leading bits of an IPv6 client address make one client for the rate limit
    /// (`RATE_LIMIT_IPV6_PREFIX`): one subscriber is given a whole /64, so counting full addresses would
    /// give it 2^64 buckets. Default 64.
    public var rateLimitIPv6Prefix: Int = 64
    /// The most client addresses the rate limit keeps a bucket for; beyond that the bucket nearest to full
    /// again is forgotten. Default 100,000.
    public var rateLimitAddresses: Int = 100_000
    /// The most access tokens remembered as verified (each costs no signature check again); beyond that the
    /// one that expires first is forgotten. Default 100,000.
    public var verifiedTokenCacheSize: Int = 100_000
    /// The most ended sessions whose tokens are refused (`ENDED_SESSIONS_CAPACITY`). Beyond that the one whose
    /// tokens expire first is forgotten (and counted), and the gateway fails closed: a token issued before the
    /// last forgotten end is refused, so its app refreshes. Size it for the sessions ended within one access-token lifetime, and for memory: with
    /// 208,000 of them and 100,000 verified tokens a gateway held 160 MiB more than idle (docs/performance.md).
    /// Default 500,000.
    public var endedSessionCapacity: Int = 500_000
    /// How long after a provider sign-in an access token may link or unlink an identity or delete the member
    /// (`REAUTHENTICATION_WINDOW`, RFC 9470): checked here before a provider is asked, and again by the
    /// member-service, which owns the change. Default 300 s.
    public var reauthenticationWindow: Duration = .seconds(300)
    /// Proxies whose `X-Forwarded-For` names the client (`TRUSTED_PROXIES`, comma-separated CIDR
    /// blocks such as `10.0.0.0/8`). Default none: the client is the connection's peer.
    public var trustedProxies: [AddressRange] = []

    /// The management port (`MANAGEMENT_PORT`, default 9090 from the environment; `MANAGEMENT_HOST`):
    /// `/metrics`, `/healthz`, `/readyz`. Off in a configuration built in code.
    public var management = ManagementConfiguration()

    /// The defaults.
    public init() {}
}
