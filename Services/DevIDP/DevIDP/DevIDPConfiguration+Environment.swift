import Runtime

extension DevIDPConfiguration {
    /// Reads `DEV_IDP_HOST`, `DEV_IDP_PORT`, `DEV_IDP_BASE_URL`, `DEV_IDP_JWKS_MAX_AGE`,
    /// `DEV_IDP_NAVER_CLIENT_ID`, `DEV_IDP_NAVER_CLIENT_SECRET`, `DEV_IDP_APPLE_TEAM_ID`,
    /// `DEV_IDP_APPLE_KEY_ID`, `DEV_IDP_APPLE_KEY_FILE`, `DEV_IDP_APPLE_CLIENT_ID`.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        host = environment.string("DEV_IDP_HOST", default: host)
        port = try environment.int("DEV_IDP_PORT", default: port, in: 0...65_535)
        baseURL = try environment.optionalURL("DEV_IDP_BASE_URL")
        jwksMaxAge = try environment.int("DEV_IDP_JWKS_MAX_AGE", default: jwksMaxAge, in: 0...86_400)
        naverClientID = environment.optional("DEV_IDP_NAVER_CLIENT_ID")
        naverClientSecret = environment.optional("DEV_IDP_NAVER_CLIENT_SECRET")
        appleTeamID = environment.optional("DEV_IDP_APPLE_TEAM_ID")
        appleKeyID = environment.optional("DEV_IDP_APPLE_KEY_ID")
        appleKeyFile = environment.optional("DEV_IDP_APPLE_KEY_FILE")
        appleClientID = environment.string("DEV_IDP_APPLE_CLIENT_ID", default: appleClientID)
    }
}
