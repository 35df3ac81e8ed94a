import Foundation
import Synchronization

/// Reads typed values from environment variables; every failure names the variable.
public struct EnvironmentReader: Sendable {
    /// The variables read, usually the process environment.
    public let values: [String: String]
    private let log: ReadLog?

    /// Reads from `values` (the process environment by default); with `log`, notes every name asked for.
    public init(_ values: [String: String] = ProcessInfo.processInfo.environment, log: ReadLog? = nil) {
        self.values = values
        self.log = log
    }

    /// The names of the variables a reader was asked for, set or not: what a configuration reads,
    /// which the tests hold against the configuration reference (`docs/configuration.md`).
    public final class ReadLog: Sendable {
        private let names = Mutex<Set<String>>([])

        /// An empty log.
        public init() {}

        /// Every name asked for so far.
        public var variables: Set<String> { names.withLock { $0 } }

        fileprivate func record(_ name: String) {
            names.withLock { _ = $0.insert(name) }
        }
    }

    /// The trimmed value of `name`, or nil when unset or empty.
    public func optional(_ name: String) -> String? {
        log?.record(name)
        guard let raw = values[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        return raw
    }

    /// The value of `name`, or `defaultValue` when unset or empty.
    public func string(_ name: String, default defaultValue: String) -> String {
        optional(name) ?? defaultValue
    }

    /// A comma-separated list (entries trimmed, empty entries dropped); nil when unset.
    public func list(_ name: String) -> [String]? {
        guard let raw = optional(name) else { return nil }
        let items = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return items.isEmpty ? nil : items
    }

    /// A whole number within `range`, or `defaultValue` when unset.
    public func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let raw = optional(name) else { return defaultValue }
        guard let value = Int(raw) else {
            throw ConfigurationError(variable: name, problem: "'\(raw)' is not a whole number")
        }
        guard range.contains(value) else {
            throw ConfigurationError(variable: name, problem: "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A whole number of seconds within `range`, or `defaultValue` when unset (the configuration's own default,
    /// so that each default is written once, where the setting is declared).
    public func seconds(_ name: String, default defaultValue: Duration, in range: ClosedRange<Int>) throws(ConfigurationError) -> Duration {
        guard optional(name) != nil else { return defaultValue }
        return .seconds(try int(name, default: 0, in: range))
    }

    /// An absolute `http`/`https` (or, with `schemes`, other) URL, or `defaultValue` when unset.
    public func url(_ name: String, default defaultValue: String, schemes: Set<String> = ["http", "https"]) throws(ConfigurationError) -> String {
        let raw = string(name, default: defaultValue)
        try Self.checkURL(raw, variable: name, schemes: schemes)
        return raw
    }

    /// A comma-separated list of URLs (`nats://a:4222,nats://b:4222`), or `defaultValue` when unset:
    /// each one absolute, with a scheme of `schemes` and a host, none twice, and none with a user or
    /// password (they would be logged with the server list; the services sign in otherwise, such as
    /// NATS's nkey seed file). Returns the list trimmed of spaces around each URL, joined by commas.
    public func urlList(_ name: String, default defaultValue: String, schemes: Set<String>) throws(ConfigurationError) -> String {
        let raw = string(name, default: defaultValue)
        // Before the split: a password may hold a comma, and no part of one may be quoted.
        guard !raw.contains("@") else {
            throw ConfigurationError(variable: name, problem: "holds a user or password (an '@'), which would be logged; sign in with the credentials files instead")
        }
        let urls = raw.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var seen = Set<String>()
        for url in urls {
            guard !url.isEmpty else {
                throw ConfigurationError(variable: name, problem: "an empty entry in the comma-separated list")
            }
            try Self.checkURL(url, variable: name, schemes: schemes)
            guard seen.insert(url.lowercased()).inserted else {
                throw ConfigurationError(variable: name, problem: "'\(url)' is listed twice")
            }
        }
        return urls.joined(separator: ",")
    }

    /// An optional URL; nil when unset.
    public func optionalURL(_ name: String, schemes: Set<String> = ["http", "https"]) throws(ConfigurationError) -> String? {
        guard let raw = optional(name) else { return nil }
        try Self.checkURL(raw, variable: name, schemes: schemes)
        return raw
    }

    /// One of `choices`, or `defaultValue` when unset.
    public func choice(_ name: String, default defaultValue: String, from choices: [String]) throws(ConfigurationError) -> String {
        let raw = string(name, default: defaultValue)
        guard choices.contains(raw) else {
            throw ConfigurationError(variable: name, problem: "'\(raw)' is not one of \(choices.joined(separator: ", "))")
        }
        return raw
    }

    /// A boolean (`true/false`, `1/0`, `yes/no`), or `defaultValue` when unset.
    public func bool(_ name: String, default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let raw = optional(name)?.lowercased() else { return defaultValue }
        switch raw {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw ConfigurationError(variable: name, problem: "'\(raw)' is not true or false")
        }
    }

    private static func checkURL(_ raw: String, variable: String, schemes: Set<String>) throws(ConfigurationError) {
        guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), schemes.contains(scheme),
              let host = url.host, !host.isEmpty else {
            // A value with an '@' may hold a password: it is not quoted.
            let value = raw.contains("@") ? "the value (not shown: it holds an '@')" : "'\(raw)'"
            throw ConfigurationError(variable: variable,
                                     problem: "\(value) is not an absolute \(schemes.sorted().joined(separator: "/")) URL")
        }
    }
}
