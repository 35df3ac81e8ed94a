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
    /// Origins besides `baseURL`'s that `authorizedData(for:)` sends the access token to (your API's,
    /// say): scheme, host and port of each URL. A request to any other origin goes out without it.
    public var authorizedOrigins: [URL] = []
    /// At most this many refreshes within the window; beyond it a refresh fails with
    /// `ClientError.refreshLimitReached` instead of rotating the tokens again (an API that answers 401
    /// for reasons of its own must not start a refresh storm). Default 5 per 30 s.
    public var refreshLimit = RefreshLimit(count: 5, per: .seconds(30))

    /// A configuration for the gateway at `baseURL`, with the defaults above.
    public init(baseURL: URL) {
        self.baseURL = baseURL
    }

    /// Whether `url` is `baseURL`'s origin or one of `authorizedOrigins`.
    func isAuthorizedOrigin(_ url: URL?) -> Bool {
        guard let origin = url.flatMap(Origin.init) else { return false }
        return ([baseURL] + authorizedOrigins).contains { Origin($0) == origin }
    }

    /// The device's locale as a BCP 47 tag, when it fits the API's 35-byte limit.
    static var deviceLocale: String? {
        let tag = Locale.current.identifier(.bcp47)
        if !tag.isEmpty, tag.utf8.count <= 35 { return tag }
        return Locale.current.language.languageCode?.identifier
    }
}

/// How many refreshes a client may make within a window.
public struct RefreshLimit: Sendable, Equatable {
    /// Refreshes allowed per window (at least 1).
    public var count: Int
    /// The window.
    public var window: Duration

    /// At most `count` refreshes per `window`.
    public init(count: Int, per window: Duration) {
        self.count = max(1, count)
        self.window = window
    }
}

/// A URL's origin: scheme and host in lower case, and the port, the scheme's default when none is given.
struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        guard let port = url.port ?? ["https": 443, "http": 80][scheme] else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }
}
