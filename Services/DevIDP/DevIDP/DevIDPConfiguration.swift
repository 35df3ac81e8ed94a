/// The dev identity provider's settings.
public struct DevIDPConfiguration: Sendable {
    /// Address to listen on (`DEV_IDP_HOST`). Default `127.0.0.1`.
    public var host: String = "127.0.0.1"
    /// Port to listen on (`DEV_IDP_PORT`); 0 picks a free one. Default 9400.
    public var port: Int = 9400
    /// The URL the issuers are named after (`DEV_IDP_BASE_URL`); default `http://<host>:<port>`.
    public var baseURL: String?
    /// `Cache-Control: max-age` of the key sets, in seconds (`DEV_IDP_JWKS_MAX_AGE`). Default 300.
    public var jwksMaxAge: Int = 300
    /// The Naver client ID the token-delete endpoint requires (`DEV_IDP_NAVER_CLIENT_ID`); nil: any.
    public var naverClientID: String?
    /// The Naver client secret the token-delete endpoint requires (`DEV_IDP_NAVER_CLIENT_SECRET`); nil: any.
    public var naverClientSecret: String?
    /// The team ID Apple client secrets must name as `iss` (`DEV_IDP_APPLE_TEAM_ID`); nil: any.
    public var appleTeamID: String?
    /// The key ID Apple client secrets must name as `kid` (`DEV_IDP_APPLE_KEY_ID`); nil: any.
    public var appleKeyID: String?
    /// A PEM file with the key (public, or the private `.p8`) whose signature Apple client secrets
    /// must carry (`DEV_IDP_APPLE_KEY_FILE`); nil: only the claims are checked.
    public var appleKeyFile: String?
    /// The audience of minted Apple notifications when the request names none
    /// (`DEV_IDP_APPLE_CLIENT_ID`). Default `dev.apple.client`.
    public var appleClientID: String = "dev.apple.client"

    /// The defaults.
    public init() {}
}
