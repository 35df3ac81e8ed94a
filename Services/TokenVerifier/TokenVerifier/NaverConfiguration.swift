/// How Naver access tokens are proved and deleted (`NAVER_*`).
public struct NaverConfiguration: Sendable {
    /// `NAVER_CLIENT_ID`.
    public var clientID: String
    /// `NAVER_CLIENT_SECRET`.
    public var clientSecret: String
    /// `NAVER_PROFILE_URL`. Default `https://openapi.naver.com/v1/nid/me`.
    public var profileURL: String = "https://openapi.naver.com/v1/nid/me"
    /// `NAVER_TOKEN_URL` (token delete). Default `https://nid.naver.com/oauth2.0/token`.
    public var tokenURL: String = "https://nid.naver.com/oauth2.0/token"

    /// A configuration with the default URLs.
    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }
}
