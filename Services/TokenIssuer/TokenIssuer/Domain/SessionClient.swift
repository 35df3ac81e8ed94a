import Contracts
import Rules

/// What a session remembers of the app that started it, for the session lists: the login's platform
/// (`iOS 18.1`) and app version (`MyApp 2.3.1`). The gateway cleaned them; the issuer cleans them again,
/// trusting no caller, and never refuses a login for them.
struct SessionClient: Sendable, Equatable {
    /// The device's platform, at most ``FieldLimits/platform`` bytes, or nil.
    let platform: String?
    /// The app's name and version, at most ``FieldLimits/appVersion`` bytes, or nil.
    let appVersion: String?

    /// A login that said nothing of its app.
    static let unknown = SessionClient(platform: nil, appVersion: nil)

    /// Cleans what a login said, as every service keeps a login's client (``ClientRules``, `ProfileRules.cleanedText`).
    init(platform: String?, appVersion: String?) {
        self.platform = ProfileRules.cleanedText(platform, maxBytes: FieldLimits.platform)
        self.appVersion = ProfileRules.cleanedText(appVersion, maxBytes: FieldLimits.appVersion)
    }
}
