import Postgres
import Testing
import TestSupport
@testable import TokenIssuer

/// A database that ran the issuer migrations as they shipped, function and trigger definitions
/// included, ends with the same ones as a fresh database once the current code has started on it.
@Suite("Issuer schema: an upgraded database has the fresh database's functions")
struct IssuerSchemaUpgradeTests {
    @Test("after shipped versions 1 through n", arguments: 1...4)
    func upgradedMatchesFresh(shippedVersions: Int) async throws {
        try await SchemaDatabase.expectUpgradedMatchesFresh(
            .tokenIssuer, schema: IssuerMigrations.schema, migrations: IssuerMigrations.all, functions: IssuerMigrations.functions,
            shipped: Array(ShippedIssuerMigrations.all.prefix(shippedVersions)), expected: [
                "issuer.start_session(bigint,text,text,bytea,integer,bigint,text,text,uuid,bytea)",
                "issuer.open_session(bigint,text,text,integer,bigint,text,text,uuid,bytea,bytea)",
                "issuer.session_refusal(issuer.sessions,text,timestamp with time zone)",
                "issuer.new_token_secret()",
                "issuer.end_deleted_member(bigint)",
                "issuer.apply_member_suspension(bigint,boolean,bigint,integer)",
                "issuer.rotate_refresh_token(bytea,bytea,text,integer,integer)",
                "issuer.refresh_second_look(uuid,bigint,bytea,text,integer,integer)",
                "issuer.rotate_legacy_refresh_token(bytea,bytea,text,integer,integer)",
                "issuer.token_tag(bytea,bigint)",
                "issuer.record_session_end()",
                "trigger sessions_ended on sessions",
            ])
    }
}
