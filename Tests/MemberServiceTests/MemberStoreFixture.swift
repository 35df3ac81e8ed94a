import Contracts
import Foundation
import Postgres
import Runtime
import Testing
import TestSupport
@testable import MemberService

/// A member store on a fresh database of its own (as member_service, migrated, functions applied),
/// with no NATS: its events stay in the outbox, where the tests read them.
struct MemberStoreFixture: Sendable {
    let store: MemberStore
    var database: PostgresClient { store.database }

    static func make() async throws -> MemberStoreFixture {
        let database = try await SchemaDatabase.fresh(.memberService, schema: MemberMigrations.schema,
                                                      migrations: MemberMigrations.all, functions: MemberMigrations.functions)
        return MemberStoreFixture(store: MemberStore(database: database, outbox: Wakeup()))
    }

    /// An identity no other test uses.
    static func identity(_ provider: Provider = .google, email: String? = nil, verified: Bool? = nil, name: String? = nil,
                         sealed: String? = nil) -> VerifiedIdentity {
        VerifiedIdentity(provider: provider, subject: UUID().uuidString, email: email, emailVerified: verified,
                         name: name, sealedCredential: sealed)
    }

    /// Logs `identity` in with what the app sent.
    func login(_ identity: VerifiedIdentity, appEmail: String? = nil, appName: String? = nil) async throws -> MemberLoginReply {
        try await store.login(MemberLoginRequest(identity: identity, deviceId: "store-test", name: appName, email: appEmail))
    }

    func profile(_ memberId: Int64) async throws -> MemberProfile {
        try #require(try await store.member(memberId)).profile
    }

    /// Links the identity of `request`, then answers the member's profile, as the link endpoint does.
    @discardableResult
    func link(_ request: LinkIdentityRequest) async throws -> MemberProfile {
        try await store.link(request)
        return try await profile(request.memberId)
    }

    /// The member's events waiting in the outbox, oldest first.
    func events(_ memberId: Int64) async throws -> [String] {
        try await database.query("""
            SELECT event_type FROM member.outbox
             WHERE convert_from(data, 'UTF8')::jsonb ->> 'memberId' = \(String(memberId)) ORDER BY id
            """).map { try $0.string("event_type") }
    }

    /// The stored identity's email and flag.
    func identityEmail(_ identity: VerifiedIdentity) async throws -> (email: String?, verified: Bool) {
        let row = try #require(try await database.query("""
            SELECT email, email_verified FROM member.identities
             WHERE provider = \(identity.provider.rawValue) AND provider_user_id = \(identity.subject)
            """).first)
        return (try row.optionalString("email"), try row.bool("email_verified"))
    }
}
