import Foundation

extension PostgresConfiguration {
    /// Parses `postgres://user:password@host:port/database?sslmode=…` (also `postgresql://`).
    ///
    /// User, password, host and database are percent-decoded; the port defaults to 5432, the database to the user
    /// name, `sslmode` to `prefer`. Also understood: `application_name`, `connect_timeout` (seconds). Errors name
    /// what is wrong without repeating the password.
    public init(url: String) throws {
        func invalid(_ reason: String) -> PostgresError { .invalidConfiguration("database URL: \(reason)") }

        let rest: Substring
        if url.hasPrefix("postgres://") {
            rest = url.dropFirst("postgres://".count)
        } else if url.hasPrefix("postgresql://") {
            rest = url.dropFirst("postgresql://".count)
        } else {
            throw invalid("must start with postgres:// or postgresql://")
        }

        var main = rest
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            main = rest[..<mark]
            query = rest[rest.index(after: mark)...]
        }
        if main.contains("#") || query.contains("#") {
            throw invalid("a '#' must be percent-encoded as %23")
        }

        var authority = main
        var path: Substring = ""
        if let slash = main.firstIndex(of: "/") {
            authority = main[..<slash]
            path = main[main.index(after: slash)...]
        }

        var userInfo: Substring = ""
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
        }

        var rawUser = userInfo
        var rawPassword: Substring?
        if let colon = userInfo.firstIndex(of: ":") {
            rawUser = userInfo[..<colon]
            rawPassword = userInfo[userInfo.index(after: colon)...]
        }
        guard let user = String(rawUser).removingPercentEncoding else { throw invalid("the user name has an invalid percent-escape") }
        guard !user.isEmpty else { throw invalid("missing user name (postgres://USER:PASSWORD@HOST:PORT/DATABASE)") }
        var password: String?
        if let rawPassword {
            guard let decoded = String(rawPassword).removingPercentEncoding else {
                throw invalid("the password has an invalid percent-escape (encode reserved characters, e.g. '@' as %40)")
            }
            password = decoded
        }

        var rawHost = hostPort
        var rawPort: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw invalid("unterminated IPv6 address (missing ']')") }
            rawHost = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected text after the IPv6 address") }
                rawPort = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            rawHost = hostPort[..<colon]
            rawPort = hostPort[hostPort.index(after: colon)...]
        }
        guard let host = String(rawHost).removingPercentEncoding, !host.isEmpty else { throw invalid("missing host") }
        var port = 5432
        if let rawPort {
            guard let number = Int(rawPort), (1...65535).contains(number) else {
                throw invalid("port '\(rawPort)' is not a number between 1 and 65535")
            }
            port = number
        }

        guard let database = String(path).removingPercentEncoding else { throw invalid("the database name has an invalid percent-escape") }
        guard !database.contains("/") else { throw invalid("the database name must not contain '/'") }

        self.init(host: host, port: port, user: user, password: password, database: database.isEmpty ? user : database)

        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0])
            guard parts.count == 2, let value = String(parts[1]).removingPercentEncoding else {
                throw invalid("parameter '\(key)' needs a value (name=value)")
            }
            switch key {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw invalid("sslmode '\(value)' is not one of \(modes)")
                }
                tlsMode = mode
            case "application_name":
                applicationName = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw invalid("connect_timeout '\(value)' is not a positive number of seconds")
                }
                connectTimeout = .seconds(seconds)
            default:
                throw invalid("unsupported parameter '\(key)' (known: sslmode, application_name, connect_timeout)")
            }
        }
    }
}
