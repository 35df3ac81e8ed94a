import Contracts
import Foundation
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

    /// Cleans what a login said (``clean(_:maxBytes:)``).
    init(platform: String?, appVersion: String?) {
        self.platform = Self.clean(platform, maxBytes: FieldLimits.platform)
        self.appVersion = Self.clean(appVersion, maxBytes: FieldLimits.appVersion)
    }

    /// `value` as kept: control characters, invisible formatting and line separators dropped
    /// (`ProfileRules.isUnsafeInText`), the ends trimmed, cut to `maxBytes` bytes at a character's end; nil
    /// when nothing is left.
    static func clean(_ value: String?, maxBytes: Int) -> String? {
        guard let value else { return nil }
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars where !ProfileRules.isUnsafeInText(scalar) {
            scalars.append(scalar)
        }
        var kept = String(scalars).trimmingCharacters(in: .whitespaces)
        while kept.utf8.count > maxBytes { kept.removeLast() }
        kept = kept.trimmingCharacters(in: .whitespaces)
        return kept.isEmpty ? nil : kept
    }
}
