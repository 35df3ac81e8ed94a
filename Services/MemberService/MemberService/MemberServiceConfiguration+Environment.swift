import Runtime

extension MemberServiceConfiguration {
    /// Reads `NATS_URL`, `DATABASE_URL` and `DATABASE_POOL_SIZE`; throws naming the variable at fault.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        natsURL = try environment.url("NATS_URL", default: natsURL, schemes: ["nats", "tls"])
        databaseURL = try environment.url("DATABASE_URL", default: databaseURL, schemes: ["postgres", "postgresql"])
        databasePoolSize = try environment.int("DATABASE_POOL_SIZE", default: databasePoolSize, in: 1...256)
    }
}
