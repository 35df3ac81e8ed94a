import Postgres

/// The issuer schema's migrations 1–4 exactly as they shipped, with the function and trigger
/// definitions that SQL/functions.sql now owns: they build a database as the code before that file
/// left it, so the upgrade test can show such a database ends with the same functions as a fresh one.
enum ShippedIssuerMigrations {
    static let schema = "issuer"

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

            -- One session per (member, device): a new login on the device ends the old one.
            -- The advisory lock serialises concurrent logins of one member on one device.
            CREATE FUNCTION issuer.start_session(p_member BIGINT, p_device TEXT, p_provider TEXT, p_token_hash BYTEA, p_ttl_seconds INT)
            RETURNS UUID
            LANGUAGE plpgsql AS $$
            DECLARE
                v_session UUID := gen_random_uuid();
            BEGIN
                PERFORM pg_advisory_xact_lock(hashtext(p_member::text), hashtext(p_device));
                UPDATE issuer.sessions SET ended_at = now(), end_reason = 'replaced'
                 WHERE member_id = p_member AND device_id = p_device AND ended_at IS NULL;
                INSERT INTO issuer.sessions (id, member_id, device_id, provider, expires_at)
                     VALUES (v_session, p_member, p_device, p_provider, now() + make_interval(secs => p_ttl_seconds));
                INSERT INTO issuer.refresh_tokens (token_hash, session_id, expires_at)
                     VALUES (p_token_hash, v_session, now() + make_interval(secs => p_ttl_seconds));
                RETURN v_session;
            END;
            $$;

            -- Rotates a refresh token. Answers 'rotated' (first use, or a duplicate inside the
            -- grace window that derived the same successor), 'reused' (a rotated token presented
            -- after the window: the session is ended) or 'invalid'.
            CREATE FUNCTION issuer.rotate_refresh_token(
                p_token_hash BYTEA, p_successor_hash BYTEA, p_device TEXT, p_grace_seconds INT, p_ttl_seconds INT)
            RETURNS TABLE (status TEXT, session_id UUID, member_id BIGINT)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_token issuer.refresh_tokens%ROWTYPE;
                v_session issuer.sessions%ROWTYPE;
            BEGIN
                SELECT * INTO v_token FROM issuer.refresh_tokens t WHERE t.token_hash = p_token_hash FOR UPDATE;
                IF NOT FOUND THEN
                    status := 'invalid';
                    RETURN NEXT;
                    RETURN;
                END IF;
                SELECT * INTO v_session FROM issuer.sessions s WHERE s.id = v_token.session_id FOR UPDATE;
                IF v_session.ended_at IS NOT NULL OR v_session.expires_at <= now() OR v_token.expires_at <= now()
                   OR (p_device IS NOT NULL AND p_device <> v_session.device_id) THEN
                    status := 'invalid';
                    RETURN NEXT;
                    RETURN;
                END IF;
                session_id := v_session.id;
                member_id := v_session.member_id;
                IF v_token.rotated_at IS NULL THEN
                    UPDATE issuer.refresh_tokens t SET rotated_at = now(), successor_hash = p_successor_hash
                     WHERE t.token_hash = p_token_hash;
                    INSERT INTO issuer.refresh_tokens (token_hash, session_id, expires_at)
                         VALUES (p_successor_hash, v_session.id, now() + make_interval(secs => p_ttl_seconds));
                    UPDATE issuer.sessions s SET last_used_at = now(), expires_at = now() + make_interval(secs => p_ttl_seconds)
                     WHERE s.id = v_session.id;
                    status := 'rotated';
                ELSIF v_token.rotated_at > now() - make_interval(secs => p_grace_seconds)
                      AND v_token.successor_hash = p_successor_hash THEN
                    status := 'rotated';
                ELSE
                    UPDATE issuer.sessions s SET ended_at = now(), end_reason = 'refresh-token-reused'
                     WHERE s.id = v_session.id;
                    status := 'reused';
                END IF;
                RETURN NEXT;
            END;
            $$;
            """),
        Migration(version: 2, name: "session events outbox, reasons, clean-up indexes", sql: """
            -- Events about sessions, written in the transaction that changed the session and
            -- published after commit (OutboxRelay), so none is lost when a replica dies.
            CREATE TABLE issuer.outbox (
                seq         BIGSERIAL PRIMARY KEY,
                id          UUID NOT NULL DEFAULT gen_random_uuid(),
                event       TEXT NOT NULL,
                session_id  UUID NOT NULL,
                member_id   BIGINT NOT NULL,
                reason      TEXT NOT NULL,
                created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
            );

            -- Every session that ends, whatever ended it, yields `session.ended` (and a reuse also
            -- `refresh-token.reused`) in the same transaction.
            CREATE FUNCTION issuer.record_session_end() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.end_reason = 'reuse' THEN
                    INSERT INTO issuer.outbox (event, session_id, member_id, reason)
                         VALUES ('refresh-token.reused', NEW.id, NEW.member_id, NEW.end_reason);
                END IF;
                INSERT INTO issuer.outbox (event, session_id, member_id, reason)
                     VALUES ('session.ended', NEW.id, NEW.member_id, NEW.end_reason);
                RETURN NULL;
            END;
            $$;
            CREATE TRIGGER sessions_ended AFTER UPDATE OF ended_at ON issuer.sessions
                FOR EACH ROW WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL)
                EXECUTE FUNCTION issuer.record_session_end();

            CREATE INDEX sessions_expires ON issuer.sessions (expires_at);
            CREATE INDEX sessions_ended ON issuer.sessions (ended_at) WHERE ended_at IS NOT NULL;
            CREATE INDEX refresh_tokens_expires ON issuer.refresh_tokens (expires_at);

            -- As in version 1, with the end reason spelled as the `session.ended` event spells it.
            CREATE OR REPLACE FUNCTION issuer.rotate_refresh_token(
                p_token_hash BYTEA, p_successor_hash BYTEA, p_device TEXT, p_grace_seconds INT, p_ttl_seconds INT)
            RETURNS TABLE (status TEXT, session_id UUID, member_id BIGINT)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_token issuer.refresh_tokens%ROWTYPE;
                v_session issuer.sessions%ROWTYPE;
            BEGIN
                SELECT * INTO v_token FROM issuer.refresh_tokens t WHERE t.token_hash = p_token_hash FOR UPDATE;
                IF NOT FOUND THEN
                    status := 'invalid';
                    RETURN NEXT;
                    RETURN;
                END IF;
                SELECT * INTO v_session FROM issuer.sessions s WHERE s.id = v_token.session_id FOR UPDATE;
                IF v_session.ended_at IS NOT NULL OR v_session.expires_at <= now() OR v_token.expires_at <= now()
                   OR (p_device IS NOT NULL AND p_device <> v_session.device_id) THEN
                    status := 'invalid';
                    RETURN NEXT;
                    RETURN;
                END IF;
                session_id := v_session.id;
                member_id := v_session.member_id;
                IF v_token.rotated_at IS NULL THEN
                    UPDATE issuer.refresh_tokens t SET rotated_at = now(), successor_hash = p_successor_hash
                     WHERE t.token_hash = p_token_hash;
                    INSERT INTO issuer.refresh_tokens (token_hash, session_id, expires_at)
                         VALUES (p_successor_hash, v_session.id, now() + make_interval(secs => p_ttl_seconds));
                    UPDATE issuer.sessions s SET last_used_at = now(), expires_at = now() + make_interval(secs => p_ttl_seconds)
                     WHERE s.id = v_session.id;
                    status := 'rotated';
                ELSIF v_token.rotated_at > now() - make_interval(secs => p_grace_seconds)
                      AND v_token.successor_hash = p_successor_hash THEN
                    status := 'rotated';
                ELSE
                    UPDATE issuer.sessions s SET ended_at = now(), end_reason = 'reuse'
                     WHERE s.id = v_session.id;
                    status := 'reused';
                END IF;
                RETURN NEXT;
            END;
            $$;
            """),
        Migration(version: 3, name: "signing keys from files", sql: """
            -- Keys from SIGNING_KEY_FILE are recorded with their public half only: the private key stays in the file.
            ALTER TABLE issuer.signing_keys ALTER COLUMN private_key_pem DROP NOT NULL;
            ALTER TABLE issuer.signing_keys ADD COLUMN public_key_pem TEXT;
            ALTER TABLE issuer.signing_keys ADD CONSTRAINT signing_keys_some_key
                CHECK (private_key_pem IS NOT NULL OR public_key_pem IS NOT NULL);
            """),
        deletedMembers,
    ]
}
