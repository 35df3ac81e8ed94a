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
    /// The platform sent with logins (`iOS 18.1`), shown in the member's session list beside the app version,
    /// so they can tell their devices apart; nil sends none (the server then reads the `User-Agent`).
    /// Default: the system's name and version.
    public var platform: String? = AuthClientConfiguration.devicePlatform
    /// The app's name and version sent with logins (`MyApp 2.3.1`); nil sends none. Default: the main
    /// bundle's name and short version, when it has them.
    public var appVersion: String? = AuthClientConfiguration.bundleAppVersion
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

    /// The system's name and version (`iOS 18.1`, `macOS 15.1`), as the API takes it (64 bytes at most).
    static var devicePlatform: String? {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(iOS)
        let system = "iOS"
        #elseif os(macOS)
        let system = "macOS"
        #elseif os(watchOS)
        let system = "watchOS"
        #elseif os(tvOS)
        let system = "tvOS"
        #elseif os(visionOS)
        let system = "visionOS"
        #else
        let system = "Linux"
        #endif
        return bounded("\(system) \(version.majorVersion).\(version.minorVersion)" + (version.patchVersion > 0 ? ".\(version.patchVersion)" : ""))
    }

    /// The main bundle's name and short version (`MyApp 2.3.1`), when it has both.
    static var bundleAppVersion: String? {
        let info = Bundle.main.infoDictionary ?? [:]
        guard let name = (info["CFBundleDisplayName"] ?? info["CFBundleName"]) as? String,
              let version = info["CFBundleShortVersionString"] as? String else { return nil }
        return bounded("\(name) \(version)")
    }

    /// `value` cut to the API's 64 bytes at a character's end.
    private static func bounded(_ value: String) -> String? {
        var value = value
        while value.utf8.count > 64 { value.removeLast() }
        return value.isEmpty ? nil : value
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
