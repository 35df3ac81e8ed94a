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

    /// Runs `sql` on the stack's database and returns each row as column → text (NULL is absent).
    /// Cast non-text columns in the SQL (`count(*)::text`).
    public func rows(_ sql: String, _ parameters: [String] = []) async throws -> [[String: String]] {
        let client = PostgresClient(configuration: try PostgresConfiguration(url: databaseURL),
                                    logger: Logger(label: "test-db", level: .error))
        defer { Task { await client.close() } }
        let rows = try await client.query(sql, parameters.map { .text($0) })
        return try rows.map { row in
            var values: [String: String] = [:]
            for column in row.columns {
                if let value = try row.optionalString(column) { values[column] = value }
            }
            return values
        }
    }

    /// The first row's first column of `sql` as a number (for `count(*)`).
    public func count(_ sql: String, _ parameters: [String] = []) async throws -> Int {
        guard let value = try await rows(sql, parameters).first?.values.first, let number = Int(value) else {
            throw TestStackError("no count from \(sql)")
        }
        return number
    }

    /// Calls a service endpoint over NATS directly (for contracts whose HTTP face is not merged yet).
    public func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request) async throws -> Reply {
        try await ServiceClient(connection: try await TestNATS.shared.connection(), logger: Logger(label: "test-nats", level: .error))
            .call(endpoint, request, timeout: .seconds(10))
    }

    /// The first event of `type` in the JetStream stream that `matches`, waiting up to `timeout`
    /// for it to be published; nil when none came.
    public func event<Payload>(_ type: EventType<Payload>, timeout: Duration = .seconds(10),
                               where matches: @escaping @Sendable (Payload) -> Bool) async throws -> EventEnvelope<Payload>? {
        try await events(type, timeout: timeout, count: 1, where: matches).first
    }

    /// Every event of `type` that `matches`, read until `count` arrived or `timeout` passed.
    public func events<Payload>(_ type: EventType<Payload>, timeout: Duration = .seconds(10), count: Int = .max,
                                where matches: @escaping @Sendable (Payload) -> Bool) async throws -> [EventEnvelope<Payload>] {
        let connection = try await TestNATS.shared.connection()
        try await EventPublisher(connection: connection, logger: Logger(label: "test-events", level: .error)).ensureStream()
        let consumer = try connection.jetStream.consume(stream: Events.stream, durable: "test-\(UUID().uuidString.prefix(12).lowercased())",
                                                        filterSubject: type.subject)
        return try await withThrowingTaskGroup(of: [EventEnvelope<Payload>].self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                consumer.stop()
                return []
            }
            group.addTask {
                var found: [EventEnvelope<Payload>] = []
                for try await message in consumer {
                    try await message.ack()
                    let envelope = try MessageCoding.decode(EventEnvelope<Payload>.self, from: message.payload)
                    if matches(envelope.data) { found.append(envelope) }
                    if found.count >= count { break }
                }
                consumer.stop()
                return found
            }
            var found: [EventEnvelope<Payload>] = []
            for try await result in group {
                found += result
                if result.count >= count || found.count >= count { break }
            }
            group.cancelAll()
            return found
        }
    }

    /// Sends a request to the dev IdP (its control endpoints: `/apple/control`, `/stats`, ...).
    public func devIDP(_ method: String, _ path: String, json: (any Encodable & Sendable)? = nil) async throws -> APIResponse {
        let body = try json.map { Array(try JSONEncoder().encode($0)) }
        return try await Self.send(method, devIDPURL + path,
                                   headers: body == nil ? [] : [("Content-Type", "application/json")], body: body)
    }
}
