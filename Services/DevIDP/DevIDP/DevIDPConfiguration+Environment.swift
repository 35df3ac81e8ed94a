import Runtime

extension DevIDPConfiguration {
    /// Reads `DEV_IDP_HOST`, `DEV_IDP_PORT`, `DEV_IDP_BASE_URL`, `DEV_IDP_JWKS_MAX_AGE`.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        host = environment.string("DEV_IDP_HOST", default: host)
        port = try environment.int("DEV_IDP_PORT", default: port, in: 0...65_535)
        baseURL = try environment.optionalURL("DEV_IDP_BASE_URL")
        jwksMaxAge = try environment.int("DEV_IDP_JWKS_MAX_AGE", default: jwksMaxAge, in: 0...86_400)
    }
}
