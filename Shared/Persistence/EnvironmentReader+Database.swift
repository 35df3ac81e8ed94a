import Postgres
import Runtime

extension EnvironmentReader {
    /// `DATABASE_URL`, or `defaultValue` when unset: a URL that `PostgresConfiguration` takes, checked at
    /// start so that a bad one stops the service naming the variable, before it connects to anything.
    /// The message never repeats the password, even from a URL too malformed to tell where it ends.
    public func databaseURL(default defaultValue: String) throws(ConfigurationError) -> String {
        let url = string("DATABASE_URL", default: defaultValue)
        guard url.filter({ $0 == "@" }).count <= 1 else {
            throw ConfigurationError(variable: "DATABASE_URL",
                                     problem: "has more than one '@': percent-encode an '@' in the user name or password as %40")
        }
        do {
            _ = try PostgresConfiguration(url: url)
        } catch {
            throw ConfigurationError(variable: "DATABASE_URL", problem: Self.withoutCredentials(String(describing: error), of: url))
        }
        return url
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
