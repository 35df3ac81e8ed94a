import Postgres

extension IssuerMigrations {
    /// A session's provider sign-in time, handed back at each refresh (`auth_time`; SQL/functions.sql). NULL
    /// for the sessions of the release before, whose sign-in was their start (`created_at`). A step, so a
    /// replica of that release that restarts during the roll does not write its own functions back.
    static let signInTime = Migration(version: 8, name: "a session's sign-in time kept through its refreshes", sql: """
        ALTER TABLE issuer.sessions ADD COLUMN signed_in_at TIMESTAMPTZ;
        COMMENT ON COLUMN issuer.sessions.signed_in_at IS
            'When the session signed in with its provider (its ID token''s iat, at most a minute after the start): every access token''s auth_time. NULL: created_at.';
        """)
}
