import Postgres

extension IssuerMigrations {
    /// Issue 32: an admin's suspension of a member reaches the issuer as a mark, ordered by the member-service's
    /// generation, which ends the member's sessions and refuses new ones while it holds; each session keeps the
    /// app's platform and version for the session lists; a member's sessions, ended ones included, are found by
    /// member for the admins' list.
    static let suspensions = Migration(version: 9, name: "suspended members, a session's app, sessions by member", sql: """
        -- One row per member ever suspended, kept while the member may be (a late call or event with an older
        -- generation must find the newer one to lose to): issuer.apply_member_suspension, SQL/functions.sql.
        CREATE TABLE issuer.member_suspensions (
            member_id   BIGINT PRIMARY KEY,
            suspended   BOOLEAN NOT NULL,
            generation  BIGINT NOT NULL,
            changed_at  TIMESTAMPTZ NOT NULL DEFAULT now()
        );

        -- What the login said of the app (cleaned and cut by the issuer); NULL when it said nothing.
        ALTER TABLE issuer.sessions ADD COLUMN platform TEXT, ADD COLUMN app_version TEXT;

        -- The admins' list of a member's sessions, newest first, ended ones included.
        CREATE INDEX sessions_member_created ON issuer.sessions (member_id, created_at);
        """)
}
