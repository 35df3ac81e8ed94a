import Contracts
import Crypto
import Foundation
import JSON
import Webhooks

/// One app backend's webhook, as `WEBHOOKS_FILE` lists it: where to send, the secret to sign with, and which
/// event types. Its description names it, never its secret.
public struct WebhookEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The event types an endpoint asks for.
    public enum Selection: Sendable, Equatable {
        /// `*`: every type.
        case all
        /// These types.
        case only(Set<String>)
    }

    /// Its name: lowercase letters, digits, `-` and `_`, at most 48 (it claims one of the relay's consumers by it).
    public let name: String
    /// Where deliveries are posted (`https`, or `http` when allowed).
    public let url: String
    /// The signing secret.
    public let secret: WebhookSecret
    /// The event types it gets.
    public let events: Selection

    /// An endpoint (the file's parser checks each field; tests make their own).
    public init(name: String, url: String, secret: WebhookSecret, events: Selection) {
        self.name = name
        self.url = url
        self.secret = secret
        self.events = events
    }

    /// Whether it asked for events of type `type` (`member.created`).
    public func wants(_ type: String) -> Bool {
        switch events {
        case .all: true
        case .only(let types): types.contains(type)
        }
    }

    /// Whether it asked for events published on `subject` (`events.member.created`).
    public func wantsSubject(_ subject: String) -> Bool {
        subject.hasPrefix("events.") && wants(String(subject.dropFirst("events.".count)))
    }

    public var description: String { "webhook endpoint '\(name)'" }

    /// A digest of its URL, secret and event types: what a 410 disables it for (another entry in the file enables it).
    public var fingerprint: String {
        let events = switch events {
        case .all: "*"
        case .only(let types): types.sorted().joined(separator: ",")
        }
        return String(Hex.encode(Digest.sha256(Array("\(url)\n\(Hex.encode(secret.key))\n\(events)".utf8))).prefix(32))
    }

    /// The longest name.
    public static let maxNameLength = 48
}

extension WebhookEndpoint {
    /// Reads `WEBHOOKS_FILE`'s text: a JSON array of `{"name", "url", "secret", "events"}`. Throws the first
    /// problem, naming the endpoint (its name, or its place in the array) and the field, never the secret.
    public static func list(parsing text: String, allowHTTP: Bool) throws(WebhookEndpointsError) -> [WebhookEndpoint] {
        let entries: [JSONValue]
        do {
            entries = try MessageCoding.decode([JSONValue].self, from: Array(text.utf8))
        } catch {
            throw WebhookEndpointsError("the file is not a JSON array of endpoints")
        }
        guard entries.count <= WebhookSlot.capacity else {
            throw WebhookEndpointsError("the file lists \(entries.count) endpoints; the relay serves \(WebhookSlot.capacity) at most")
        }
        var endpoints: [WebhookEndpoint] = []
        var names: Set<String> = []
        for (index, entry) in entries.enumerated() {
            let endpoint = try parse(entry, place: "endpoint \(index + 1)", allowHTTP: allowHTTP)
            guard names.insert(endpoint.name).inserted else {
                throw WebhookEndpointsError("endpoint \(index + 1) ('\(endpoint.name)'): the name is used twice")
            }
            endpoints.append(endpoint)
        }
        return endpoints
    }

    private static let fields: Set<String> = ["name", "url", "secret", "events"]

    private static func parse(_ entry: JSONValue, place: String, allowHTTP: Bool) throws(WebhookEndpointsError) -> WebhookEndpoint {
        guard case .object(let object) = entry else { throw WebhookEndpointsError("\(place): not an object") }
        guard let name = object["name"]?.stringValue else { throw WebhookEndpointsError("\(place): 'name' is missing or not a string") }
        guard isName(name) else {
            throw WebhookEndpointsError("\(place): 'name' must be 1 to \(maxNameLength) lowercase letters, digits, '-' or '_'")
        }
        let place = "\(place) ('\(name)')"
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw WebhookEndpointsError("\(place): unknown field '\(unknown.prefix(40))'")
        }
        guard let url = object["url"]?.stringValue else { throw WebhookEndpointsError("\(place): 'url' is missing or not a string") }
        if let problem = urlProblem(url, allowHTTP: allowHTTP) { throw WebhookEndpointsError("\(place): 'url' \(problem)") }
        guard let secretText = object["secret"]?.stringValue else {
            throw WebhookEndpointsError("\(place): 'secret' is missing or not a string")
        }
        let secret: WebhookSecret
        do {
            secret = try WebhookSecret(secretText)
        } catch {
            throw WebhookEndpointsError("\(place): \(error)")
        }
        guard case .array(let list)? = object["events"], !list.isEmpty else {
            throw WebhookEndpointsError("\(place): 'events' must be a non-empty array of event types or \"*\"")
        }
        var types: Set<String> = []
        for item in list {
            guard let type = item.stringValue else { throw WebhookEndpointsError("\(place): 'events' holds something other than a string") }
            guard type == "*" || Events.typeNames.contains(type) else {
                throw WebhookEndpointsError("\(place): 'events' names an unknown type '\(type.prefix(64))' (known: \(Events.typeNames.joined(separator: ", ")), or *)")
            }
            types.insert(type)
        }
        return WebhookEndpoint(name: name, url: url, secret: secret, events: types.contains("*") ? .all : .only(types))
    }

    private static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxNameLength && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// What is wrong with `url` as a webhook's address; nil when nothing is. It is never quoted back: a
    /// receiver's URL may carry a token of its own.
    static func urlProblem(_ url: String, allowHTTP: Bool) -> String? {
        guard url.utf8.count <= 2_048 else { return "is longer than 2048 bytes" }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            return "is not a URL"
        }
        guard scheme == "https" || (scheme == "http" && allowHTTP) else {
            return allowHTTP ? "must be http or https" : "must be https (WEBHOOK_ALLOW_HTTP=true allows http, for development)"
        }
        guard let host = components.host, !host.isEmpty else { return "has no host" }
        guard components.user == nil, components.password == nil else { return "must not carry a user name or password" }
        guard components.fragment == nil else { return "must not have a fragment" }
        return nil
    }
}

/// What is wrong with `WEBHOOKS_FILE`: which endpoint and field, never a secret.
public struct WebhookEndpointsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
