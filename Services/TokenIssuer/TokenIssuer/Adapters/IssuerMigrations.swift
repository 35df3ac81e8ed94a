import Postgres

/// The `issuer` schema's tables, indexes and constraints, in versioned steps. Applied at start; never
/// edit a step that shipped.
///
/// Functions and triggers are source, not history: `SQL/functions.sql` defines them and is applied
/// after these steps at every start. The steps that once defined them no longer do (a database
/// records a step's version and name, not its text, so one that ran them is not affected; the file
/// replaces what they made).
enum IssuerMigrations {
    static let schema = "issuer"

    /// `SQL/functions.sql`, compiled into the binary.
    static let functions = String(decoding: PackageResources.functions_sql, as: UTF8.self)

    static let all: [Migration] = [
        Migration(version: 1, name: "keys, sessions and refresh tokens", sql: """
            CREATE TABLE issuer.signing_keys (
                kid              TEXT PRIMARY KEY,
                algorithm        TEXT NOT NULL,
                private_key_pem  TEXT NOT NULL,
                created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
                activates_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
                retired_at       TIMESTAMPTZ
            );

            CREATE TABLE issuer.secrets (
                name        TEXT PRIMARY KEY,
                value       BYTEA NOT NULL,
                created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
            );

            CREATE TABLE issuer.sessions (
                id            UUID PRIMARY KEY,
                member_id     BIGINT NOT NULL,
                device_id     TEXT NOT NULL,
                provider      TEXT NOT NULL,
                created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
                last_used_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
                expires_at    TIMESTAMPTZ NOT NULL,
                ended_at      TIMESTAMPTZ,
                end_reason    TEXT
            );
            CREATE UNIQUE INDEX sessions_live_per_device ON issuer.sessions (member_id, device_id) WHERE ended_at IS NULL;

            -- Only SHA-256 hashes of refresh tokens are kept. A rotated token points at its
            -- successor's hash, which a duplicate refresh inside the grace window re-derives.
            CREATE TABLE issuer.refresh_tokens (
                token_hash      BYTEA PRIMARY KEY,
                session_id      UUID NOT NULL REFERENCES issuer.sessions (id) ON DELETE CASCADE,
                issued_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
                expires_at      TIMESTAMPTZ NOT NULL,
                rotated_at      TIMESTAMPTZ,
                successor_hash  BYTEA
            );
            CREATE INDEX refresh_tokens_session ON issuer.refresh_tokens (session_id);

            -- issuer.start_session and issuer.rotate_refresh_token: SQL/functions.sql.
            """),
        Migration(version: 2, name: "session events outbox, reasons, clean-up indexes", sql: """
            -- Events about sessions, written in the transaction that changed the session and
            -- published after commit (the shared Outbox), so none is lost when a replica dies.
            CREATE TABLE issuer.outbox (
                seq         BIGSERIAL PRIMARY KEY,
                id          UUID NOT NULL DEFAULT gen_random_uuid(),
                event       TEXT NOT NULL,
                session_id  UUID NOT NULL,
                member_id   BIGINT NOT NULL,
                reason      TEXT NOT NULL,
                created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
            );

            -- The trigger that writes `session.ended` for every session that ends: SQL/functions.sql.

            CREATE INDEX sessions_expires ON issuer.sessions (expires_at);
            CREATE INDEX sessions_ended ON issuer.sessions (ended_at) WHERE ended_at IS NOT NULL;
            CREATE INDEX refresh_tokens_expires ON issuer.refresh_tokens (expires_at);
            """),
        Migration(version: 3, name: "signing keys from files", sql: """
            -- Keys from SIGNING_KEY_FILE are recorded with their public half only: the private key stays in the file.
            ALTER TABLE issuer.signing_keys ALTER COLUMN private_key_pem DROP NOT NULL;
            ALTER TABLE issuer.signing_keys ADD COLUMN public_key_pem TEXT;
            ALTER TABLE issuer.signing_keys ADD CONSTRAINT signing_keys_some_key
                CHECK (private_key_pem IS NOT NULL OR public_key_pem IS NOT NULL);
            """),
        deletedMembers,
        outboxLease,
        keyVouches,
        endedSessionsOrder,
        signInTime,
        suspensions,
        sessionGenerations,
    ]
}
