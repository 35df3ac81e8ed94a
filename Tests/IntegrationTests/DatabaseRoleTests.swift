import Foundation
import Logging
import Postgres
import Testing
import TestSupport

/// SPEC section 9: member-service, token-issuer and admin-api each connect as their own role, which owns
/// its schema and has no right on the others'; the issuer's signing keys are its alone. The running
/// stack's database was made by deploy/postgres/roles.sql, as a deployment's is.
@Suite("Database roles")
struct DatabaseRoleTests {
    static func query(_ url: String, _ query: PostgresQuery) async throws -> [String] {
        let client = PostgresClient(configuration: try PostgresConfiguration(url: url), logger: Logger(label: "roles", level: .critical))
        return try await withResource(client, close: { await $0.close() }) { client in
            return try await client.query(query).map { row in try row.optionalString(row.columns[0]) ?? "NULL" }
        }
    }

    @Test("each service's role owns its schema and has no right on the other's", arguments: [
        (TestDatabases.Role.memberService, "member", "issuer", "issuer.signing_keys"),
        (TestDatabases.Role.tokenIssuer, "issuer", "member", "member.members"),
        (TestDatabases.Role.adminAPI, "audit", "issuer", "issuer.signing_keys"),
        (TestDatabases.Role.memberService, "member", "audit", "audit.records"),
    ])
    func ownSchemaOnly(_ role: TestDatabases.Role, own: String, other: String, otherTable: String) async throws {
        let stack = try await TestStack.shared.running()
        let url = TestStack.serviceURL(stack.databaseURL, role)
        let owner = try await Self.query(stack.databaseURL, "SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = \(own)")
        #expect(owner == [role.rawValue])
        #expect(try await Self.query(url, "SELECT has_schema_privilege(\(own)::text, 'USAGE')::text") == ["true"])
        #expect(try await Self.query(url, "SELECT has_schema_privilege(\(other)::text, 'USAGE')::text") == ["false"])
        #expect(try await Self.query(url, "SELECT has_schema_privilege(\(other)::text, 'CREATE')::text") == ["false"])
        await #expect(throws: PostgresError.self) { _ = try await Self.query(url, "SELECT count(*)::text FROM \(unescaped: otherTable)") }
        // Nor a way around it: no new schema, nothing in public, not a superuser.
        await #expect(throws: PostgresError.self) { _ = try await Self.query(url, "CREATE SCHEMA sneaky") }
        await #expect(throws: PostgresError.self) { _ = try await Self.query(url, "CREATE TABLE public.sneaky (x int)") }
        #expect(try await Self.query(url, "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user") == ["false"])
    }

    @Test("member-service's credentials cannot read the signing keys; the issuer's can (the control)")
    func signingKeysAreTheIssuers() async throws {
        let stack = try await TestStack.shared.running()
        let keys = try await Self.query(TestStack.serviceURL(stack.databaseURL, .tokenIssuer), "SELECT count(*)::text FROM issuer.signing_keys")
        #expect(Int(keys.first ?? "0")! >= 1)
        await #expect(throws: PostgresError.self) {
            _ = try await Self.query(TestStack.serviceURL(stack.databaseURL, .memberService), "SELECT private_key_pem FROM issuer.signing_keys")
        }
    }
}
