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

    /// The defaults.
    public init() {}
}
