import Postgres

extension IssuerMigrations {
    /// A deleted member stays deleted: a login that found the member just before its deletion may
    /// ask for a session just after it. The issuer keeps the deleted members' IDs and starts no
    /// session for them; a member's session starts and its deletion take one lock in turn.
    static let deletedMembers = Migration(version: 4, name: "no session for a deleted member", sql: """
        -- Kept as long as a refresh token lives (SessionStore.cleanUp), far longer than any login takes.
        CREATE TABLE issuer.deleted_members (
            member_id   BIGINT PRIMARY KEY,
            deleted_at  TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        CREATE INDEX deleted_members_deleted_at ON issuer.deleted_members (deleted_at);

        -- issuer.end_deleted_member, and issuer.start_session, which refuses them: SQL/functions.sql.
        """)
}
