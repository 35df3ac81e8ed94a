import Postgres

extension IssuerMigrations {
    /// The functions that record a session's sign-in time and hand it back at each refresh (`auth_time`):
    /// no table changes (created_at is the sign-in), but a step, so a replica of the release before that
    /// restarts during the roll does not write its own functions back (SQL/functions.sql).
    static let signInTime = Migration(version: 8, name: "a session's sign-in time kept through its refreshes", sql: """
        COMMENT ON COLUMN issuer.sessions.created_at IS 'When the session signed in with its provider: every access token''s auth_time.';
        """)
}
