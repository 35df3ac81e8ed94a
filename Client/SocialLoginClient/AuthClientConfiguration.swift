import Foundation

/// How an `AuthClient` reaches the backend and when it refreshes.
public struct AuthClientConfiguration: Sendable {
    /// The gateway's base URL, e.g. `https://auth.example.com` (paths like `/api/auth/...` are appended).
    public var baseURL: URL
    /// Refresh before a request when the access token expires within this long. Default 60 s.
    public var proactiveRefreshMargin: Duration = .seconds(60)
    /// Time limit of one HTTP request. Default 30 s.
    public var requestTimeout: Duration = .seconds(30)
    /// The IANA time zone sent with logins; nil sends none. Default: the device's.
    public var timezone: String? = TimeZone.current.identifier
    /// The BCP 47 locale sent with logins; nil sends none. Default: the device's.
    public var locale: String? = AuthClientConfiguration.deviceLocale

    /// A configuration for the gateway at `baseURL`, with the defaults above.
    public init(baseURL: URL) {
        self.baseURL = baseURL
    }

    /// The device's locale as a BCP 47 tag, when it fits the API's 35-byte limit.
    static var deviceLocale: String? {
        let tag = Locale.current.identifier(.bcp47)
        if !tag.isEmpty, tag.utf8.count <= 35 { return tag }
        return Locale.current.language.languageCode?.identifier
    }
}
