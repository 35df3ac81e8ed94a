import IPAddresses
import Messaging
import Management
import Runtime

extension GatewayConfiguration {
    /// Reads the gateway's variables (docs/configuration.md); throws naming the variable at fault.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        host = environment.string("GATEWAY_HOST", default: host)
        port = try environment.int("GATEWAY_PORT", default: port, in: 0...65_535)
        natsURL = try environment.urlList("NATS_URL", default: natsURL, schemes: ["nats", "tls"])
        natsAccess = try environment.natsAccess(for: .gateway)
        management = try environment.management(defaultPort: 9090)
        tokenIssuer = environment.string("TOKEN_ISSUER", default: tokenIssuer)
        tokenAudience = environment.string("TOKEN_AUDIENCE", default: tokenAudience)
        clockSkew = try environment.seconds("CLOCK_SKEW", default: clockSkew, in: 0...600)
        serviceTimeout = try environment.seconds("SERVICE_TIMEOUT", default: serviceTimeout, in: 1...60)
        httpThreads = try environment.int("GATEWAY_THREADS", default: httpThreads, in: 1...64)
        connectionTimeout = try environment.seconds("GATEWAY_CONNECTION_TIMEOUT", default: connectionTimeout, in: 1...3600)
        connectionsPerAddress = try environment.int("GATEWAY_CONNECTIONS_PER_ADDRESS", default: connectionsPerAddress, in: 0...100_000)
        refreshReuseGrace = try environment.seconds("REFRESH_REUSE_GRACE", default: refreshReuseGrace, in: 0...300)
        rateLimitRPS = try environment.int("RATE_LIMIT_RPS", default: rateLimitRPS, in: 0...1_000_000)
        rateLimitBurst = try environment.int("RATE_LIMIT_BURST", default: rateLimitBurst, in: 1...1_000_000)
        rateLimitIPv6Prefix = try environment.int("RATE_LIMIT_IPV6_PREFIX", default: rateLimitIPv6Prefix, in: 32...128)
        endedSessionCapacity = try environment.int("ENDED_SESSIONS_CAPACITY", default: endedSessionCapacity, in: 1...100_000_000)
        reauthenticationWindow = try environment.seconds("REAUTHENTICATION_WINDOW", default: reauthenticationWindow, in: 1...86_400)
        trustedProxies = try (environment.list("TRUSTED_PROXIES") ?? []).map { entry throws(ConfigurationError) in
            guard let range = AddressRange(entry) else {
                throw ConfigurationError(variable: "TRUSTED_PROXIES",
                                         problem: "'\(entry)' is not an IP address or CIDR block (like 10.0.0.0/8 or fd00::/8)")
            }
            return range
        }
    }
}
