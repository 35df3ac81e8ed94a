import Contracts
import Foundation

/// What a login says of the device and app it came from (`platform`, `appVersion`, the `User-Agent`): shown
/// in the session lists so that a member can tell "my old iPad" from a thief, and kept in the audit trail.
/// Nothing here is proof of anything: the app, or a thief, writes it. So it is cleaned and bounded, never a
/// reason to refuse a login when read from a header.
public enum ClientRules {
    /// A copy of `client` as every service keeps it: each field cleaned (``ProfileRules/cleanedText(_:maxBytes:)``)
    /// and cut to its ``FieldLimits``; nil fields stay nil, and nil when none is left. The gateway fills it, and
    /// each service that keeps it cleans it again, trusting no caller.
    public static func cleaned(_ client: ClientContext?) -> ClientContext? {
        guard let client else { return nil }
        let cleaned = ClientContext(address: ProfileRules.cleanedText(client.address, maxBytes: FieldLimits.clientAddress),
                                    platform: ProfileRules.cleanedText(client.platform, maxBytes: FieldLimits.platform),
                                    appVersion: ProfileRules.cleanedText(client.appVersion, maxBytes: FieldLimits.appVersion))
        return cleaned == ClientContext() ? nil : cleaned
    }

    /// The platform and app version a `User-Agent` names, for a login whose body sent neither:
    ///
    /// - the platform from the first of: `iOS 17.4.1` or `iPadOS 17.4` (Alamofire's `(…; iOS 17.4.1)`, a
    ///   browser's `iPhone OS 17_4`, `CPU OS 17_4` on an iPad), `Android 14`, `macOS 10.15.7`, `Windows`,
    ///   `Darwin 23.4.0` (URLSession's own `CFNetwork/… Darwin/23.4.0`, which does not tell iOS from macOS);
    /// - the app version from the first product token (`MyApp/2.3.1` → `MyApp 2.3.1`) that is not a
    ///   browser's, an HTTP library's or a system's (`Mozilla`, `Dalvik`, `okhttp`, `CFNetwork`, …).
    ///
    /// Each cleaned and bounded; nil where the header says nothing recognisable.
    public static func describe(userAgent: String?) -> (platform: String?, appVersion: String?) {
        guard let userAgent, !userAgent.isEmpty else { return (nil, nil) }
        // Its first 512 bytes, not characters: one character may be kilobytes (a letter and thousands of accents).
        let text = String(decoding: userAgent.utf8.prefix(512), as: UTF8.self)
        return (ProfileRules.cleanedText(platform(in: text), maxBytes: FieldLimits.platform),
                ProfileRules.cleanedText(appVersion(in: text), maxBytes: FieldLimits.appVersion))
    }

    /// Product names that name no app: browsers, HTTP libraries, runtimes, systems.
    private static let genericProducts: Set<String> = [
        "mozilla", "dalvik", "okhttp", "cfnetwork", "darwin", "alamofire", "curl", "wget", "go-http-client",
        "python-requests", "python-urllib", "java", "apache-httpclient", "axios", "node-fetch", "undici", "dart",
        "applewebkit", "safari", "chrome", "mobile", "version", "gecko", "firefox", "edg", "opera",
    ]

    private static func platform(in text: String) -> String? {
        let isPad = text.contains("iPad")
        let apple = isPad ? "iPadOS" : "iOS"
        if let version = version(after: "iOS ", in: text) ?? version(after: "iPhone OS ", in: text)
            ?? version(after: "CPU OS ", in: text) {
            return "\(apple) \(version)"
        }
        if let version = version(after: "Android ", in: text) { return "Android \(version)" }
        if let version = version(after: "Mac OS X ", in: text) { return "macOS \(version)" }
        if text.contains("Windows") { return "Windows" }
        if let version = version(after: "Darwin/", in: text) { return "Darwin \(version)" }
        if text.contains("Linux") { return "Linux" }
        return nil
    }

    /// The version number right after `marker` (digits, with `.` or `_` between them; `_` read as `.`).
    private static func version(after marker: String, in text: String) -> String? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "_") }
        let version = digits.replacingOccurrences(of: "_", with: ".").trimmingCharacters(in: ["."])
        return version.first?.isNumber == true ? version : nil
    }

    private static func appVersion(in text: String) -> String? {
        for token in text.split(separator: " ") {
            let parts = token.split(separator: "/", maxSplits: 1)
            guard parts.count == 2, let name = parts.first, !name.hasPrefix("("),
                  !genericProducts.contains(name.lowercased()) else { continue }
            let version = parts[1].prefix { !$0.isWhitespace && $0 != "(" && $0 != ";" }
            guard version.first?.isNumber == true else { continue }
            return "\(name) \(version)"
        }
        return nil
    }
}
