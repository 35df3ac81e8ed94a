import Contracts
import DevIDP
import Foundation
import HTTPClient
import JSON
import Logging
import Messaging
import NATS
import Postgres

/// What the member tests need besides the gateway: tokens of any provider, the stack's database,
/// its events in JetStream, the services' NATS endpoints, and the dev IdP's control endpoints.
extension RunningStack {
    /// Mints a token for `provider` with exactly `claims` (plus iss/iat/exp when absent).
    public func mint(_ provider: String, claims: [String: JSONValue]) async throws -> String {
        try await mint(provider, MintRequest(claims: claims))
    }

    /// Runs `query` on the stack's database and returns each row as column → text (NULL is absent).
    /// Cast non-text columns in the SQL (`count(*)::text`).
    public func rows(_ query: PostgresQuery) async throws -> [[String: String]] {
        let rows = try await withDatabase(databaseURL) { try await $0.query(query) }
        return try rows.map { row in
            var values: [String: String] = [:]
            for column in row.columns {
                if let value = try row.optionalString(column) { values[column] = value }
            }
            return values
        }
    }

    /// The first row's first column of `query` as a number (for `count(*)`).
    public func count(_ query: PostgresQuery) async throws -> Int {
        guard let value = try await rows(query).first?.values.first, let number = Int(value) else {
            throw TestStackError("no count from \(query)")
        }
        return number
    }

    /// Calls a service endpoint over NATS directly (for contracts whose HTTP face is not merged yet).
    public func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request) async throws -> Reply {
        try await ServiceClient(connection: try await nats(), logger: Logger(label: "test-nats", level: .error))
            .call(endpoint, request, timeout: .seconds(10))
    }

    /// The first event of `type` the stack's stream stored since the stack started that `matches`,
    /// waiting up to `timeout` for it to be published; nil when none came.
    public func event<Payload>(_ type: EventType<Payload>, timeout: Duration = .seconds(10),
                               where matches: @escaping @Sendable (Payload) -> Bool) async throws -> EventEnvelope<Payload>? {
        try await events(type, timeout: timeout, count: 1, where: matches).first
    }

    /// Every event of `type` stored since the stack started that `matches`, waiting until `count` arrived
    /// or `timeout` passed. An event of the type that does not decode fails the lookup.
    public func events<Payload>(_ type: EventType<Payload>, timeout: Duration = .seconds(10), count: Int = .max,
                                where matches: @escaping @Sendable (Payload) -> Bool) async throws -> [EventEnvelope<Payload>] {
        try await eventLog.events(type, timeout: timeout, count: count, where: matches)
    }

    /// Sends a request to the dev IdP (its control endpoints: `/apple/control`, `/stats`, ...).
    public func devIDP(_ method: String, _ path: String, json: (any Encodable & Sendable)? = nil) async throws -> APIResponse {
        let body = try json.map { Array(try JSONEncoder().encode($0)) }
        return try await Self.send(method, devIDPURL + path,
                                   headers: body == nil ? [] : [("Content-Type", "application/json")], body: body)
    }
}
