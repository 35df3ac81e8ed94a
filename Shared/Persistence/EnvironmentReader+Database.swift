import Foundation
import Postgres
import Runtime

extension EnvironmentReader {
    /// `DATABASE_URL`, or `defaultValue` when unset: a URL that `PostgresConfiguration` takes, checked at
    /// start so that a bad one stops the service naming the variable, before it connects to anything.
    /// The message never repeats the password, even from a URL too malformed to tell where it ends.
    ///
    /// `DATABASE_PASSWORD_FILE` (a mounted secret) replaces the URL's password, so the URL itself need not hold one.
    public func databaseURL(default defaultValue: String) throws(ConfigurationError) -> String {
        var url = string("DATABASE_URL", default: defaultValue)
        guard url.filter({ $0 == "@" }).count <= 1 else {
            throw ConfigurationError(variable: "DATABASE_URL",
                                     problem: "has more than one '@': percent-encode an '@' in the user name or password as %40")
        }
        if let password = try secretFile("DATABASE_PASSWORD_FILE") {
            url = try Self.replacingPassword(of: url, with: password)
        }
        do {
            _ = try PostgresConfiguration(url: url)
        } catch {
            throw ConfigurationError(variable: "DATABASE_URL", problem: Self.withoutCredentials(String(describing: error), of: url))
        }
        return url
    }

    /// `url` with `password` (percent-encoded) in place of its own password, if any.
    static func replacingPassword(of url: String, with password: String) throws(ConfigurationError) -> String {
        guard var components = URLComponents(string: url), components.host != nil else {
            throw ConfigurationError(variable: "DATABASE_URL", problem: "is not a URL that DATABASE_PASSWORD_FILE's password can go into")
        }
        guard components.password == nil else {
            throw ConfigurationError(variable: "DATABASE_PASSWORD_FILE",
                                     problem: "is set while DATABASE_URL holds a password too: leave the password out of the URL")
        }
        guard components.user?.isEmpty == false else {
            throw ConfigurationError(variable: "DATABASE_URL", problem: "names no user for DATABASE_PASSWORD_FILE's password")
        }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        components.percentEncodedPassword = password.addingPercentEncoding(withAllowedCharacters: allowed)
        guard let replaced = components.string else {
            throw ConfigurationError(variable: "DATABASE_PASSWORD_FILE", problem: "the password does not fit in DATABASE_URL")
        }
        return replaced
    }

    /// `message` with every piece of what may be `url`'s password (after the user name, up to the `@`) masked.
    static func withoutCredentials(_ message: String, of url: String) -> String {
        let authority = url.range(of: "://").map { url[$0.upperBound...] } ?? Substring(url)
        guard let at = authority.lastIndex(of: "@") else { return message }
        var masked = message
        for piece in authority[..<at].split(whereSeparator: { ":/?#&=".contains($0) }).dropFirst() where piece.count >= 3 {
            masked = masked.replacingOccurrences(of: piece, with: "***")
        }
        return masked
    }
}
