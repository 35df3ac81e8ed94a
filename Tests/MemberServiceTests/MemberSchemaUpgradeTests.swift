import Postgres
import Testing
import TestSupport
@testable import MemberService

/// A database that ran the member migrations as they shipped, function bodies included, ends with
/// the same functions as a fresh one once the current code has started on it.
@Suite("Member schema: an upgraded database has the fresh database's functions")
struct MemberSchemaUpgradeTests {
    @Test("after shipped versions 1 through n", arguments: 1...4)
    func upgradedMatchesFresh(shippedVersions: Int) async throws {
        try await SchemaDatabase.expectUpgradedMatchesFresh(
            .memberService, schema: MemberMigrations.schema, migrations: MemberMigrations.all, functions: MemberMigrations.functions,
            shipped: Array(ShippedMemberMigrations.all.prefix(shippedVersions)), expected: [
                "member.enqueue(text,jsonb)",
                "member.follow_login(bigint,text,text,text,text,text,text,text)",
                "member.identity_email(text,text,text)",
                "member.identity_email_verified(text,boolean,text,boolean)",
                "member.identity_name(text,text,text)",
                "member.logged_in(bigint,text,boolean,text,text,text,text)",
                "member.login(text,text,text,boolean,boolean,text,text,text,text,text,text,text,text,text,text,text,text,bigint,text)",
                "member.use_nonce(text,bigint)",
            ])
    }

    @Test("a second start changes nothing and needs no new version")
    func restartIsIdempotent() async throws {
        let database = try await SchemaDatabase.fresh(.memberService, schema: MemberMigrations.schema,
                                                      migrations: MemberMigrations.all, functions: MemberMigrations.functions)
        try await withResource(database, close: { await $0.close() }) { database in
            let before = try await SchemaDatabase.routines(database, schema: "member")
            try await database.migrate(schema: MemberMigrations.schema, migrations: MemberMigrations.all,
                                       functions: MemberMigrations.functions)
            #expect(try await SchemaDatabase.routines(database, schema: "member") == before)
            let versions = try await database.query("SELECT max(version) AS v FROM member.schema_migrations")
            #expect(try versions.first?.int("v") == Int64(MemberMigrations.all.count))
        }
    }
}
