import Contracts
import DevIDP
import Foundation
import JSON
import Logging
import Messaging
import NATS

/// What tests of the token-verifier need beyond HTTP: tokens of every provider, and the NATS
/// side (calls to service endpoints, published events).
extension RunningStack {
    /// An ID token of an OIDC provider (`google`, `apple`, `kakao`) for `sub`, with the stack's
    /// client ID as audience; `claims` override.
    public func idToken(_ provider: String, sub: String, claims: [String: JSONValue] = [:],
                        algorithm: String? = nil, header: [String: JSONValue]? = nil) async throws -> String {
        let audience = switch provider {
        case "apple": TestStack.ClientID.apple
        case "kakao": TestStack.ClientID.kakao
        default: TestStack.ClientID.googleIOS
        }
        var all: [String: JSONValue] = ["sub": .string(sub), "aud": .string(audience), "email": .string("\(sub)@example.com")]
        all.merge(claims) { _, new in new }
        return try await mint(provider, MintRequest(claims: all, algorithm: algorithm, header: header))
    }

    /// A Naver access token the dev IdP's profile API answers for.
    public func naverToken(_ account: NaverAccount) async -> String {
        await idp.mintNaverToken(account)
    }

    /// Calls a service endpoint over NATS: its reply, or the failure it answered with.
    public func callResult<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request) async throws -> Result<Reply, ServiceFailure> {
        let client = ServiceClient(connection: try await nats(), logger: Logger(label: "test-nats", level: .error))
        do {
            return .success(try await client.call(endpoint, request, timeout: .seconds(10)))
        } catch {
            return .failure(error)
        }
    }

    /// A member ID no real member of the stack has (the database counts from 1), for events a
    /// test publishes itself: the shared stack's consumers must not end real members' sessions.
    public static func syntheticMemberId() -> Int64 {
        Int64.random(in: 1_000_000_000_000...9_000_000_000_000)
    }

    /// Publishes a domain event to the events stream, as a service would.
    public func publish<Payload>(_ type: EventType<Payload>, _ data: Payload) async throws {
        let publisher = EventPublisher(connection: try await nats(), logger: Logger(label: "test-events", level: .error))
        try await publisher.ensureStream()
        try await publisher.publish(type, data)
    }

    /// Publishes an event that says it happened at `occurredAt` (a copy of an old one, stored again).
    public func publish<Payload>(_ type: EventType<Payload>, _ data: Payload, occurredAt: Date) async throws {
        let envelope = EventEnvelope(type, data, occurredAt: occurredAt)
        _ = try await nats().jetStream.publish(type.subject, try MessageCoding.encode(envelope), messageID: envelope.id)
    }
}

extension RunningStack {
    /// Sends `request` to the first hop of a chain and returns its answer, with the first request that hop
    /// handed on to `next` that `matches` (read beside the next service, which still answers it), or nil
    /// when none came within 10 s of the answer.
    public func handedOn<Request, Reply, Next>(_ endpoint: Endpoint<Request, Reply>, _ request: Request, to next: Endpoint<Next, Reply>,
                                              where matches: @escaping @Sendable (Next) -> Bool)
        async throws -> (answer: Result<Reply, ServiceFailure>, handedOn: Next?) {
        let connection = try await nats()
        let subscription = try connection.subscribe(next.subject)
        defer { subscription.unsubscribe() }
        try await connection.flush(timeout: .seconds(5))
        let answer = try await callResult(endpoint, request)
        let seen = Task<Next?, Never> {
            for await message in subscription {
                if let handed = try? MessageCoding.decode(Next.self, from: message.payload), matches(handed) { return handed }
            }
            return nil
        }
        let timeout = Task {
            try? await Task.sleep(for: .seconds(10))
            subscription.unsubscribe()
        }
        defer { timeout.cancel() }
        if case .failure = answer {
            subscription.unsubscribe()
        }
        return (answer, await seen.value)
    }
}
