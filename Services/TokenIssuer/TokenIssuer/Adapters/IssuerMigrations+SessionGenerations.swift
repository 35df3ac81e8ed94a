import Postgres

extension IssuerMigrations {
    /// Refresh tokens by generation (Domain/RefreshToken.swift): a session row counts its rotations and keeps the
    /// last one's time, so a refresh is one UPDATE of that row and no token row is written. The index on
    /// `expires_at`, which every refresh moves, goes, so that UPDATE is a HOT one (no index entry written: the
    /// columns it writes are in no index), with room left in the pages written from now on for the new row
    /// versions; the clean-up finds expired sessions by a scan of the table instead, at most every ten minutes
    /// across the replicas (`clean_up_runs` records the last). `refresh_tokens` keeps the tokens issued before,
    /// read until they expired (their first use rotates them into a generation).
    static let sessionGenerations = Migration(version: 10, name: "refresh tokens by session generation", sql: """
        ALTER TABLE issuer.sessions ADD COLUMN generation BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE issuer.sessions ADD COLUMN rotated_at TIMESTAMPTZ;
        ALTER TABLE issuer.sessions ADD COLUMN token_secret BYTEA;
        COMMENT ON COLUMN issuer.sessions.generation IS
            'How many times the session''s refresh token rotated: its live token is the one of this generation.';
        COMMENT ON COLUMN issuer.sessions.rotated_at IS
            'When the last rotation happened: the token of the generation before replays until the grace window after it.';
        COMMENT ON COLUMN issuer.sessions.token_secret IS
            'The session''s secret, from which each of its refresh tokens'' tag is made (issuer.token_tag; with the MAC under the key files'' key): set at the start, never changed, never sent. NULL: a session of the releases before until its first refresh.';
        DROP INDEX issuer.sessions_expires;
        ALTER TABLE issuer.sessions SET (fillfactor = 80);
        CREATE TABLE issuer.clean_up_runs (
            job     TEXT PRIMARY KEY,
            ran_at  TIMESTAMPTZ NOT NULL
        );
        """)
}
