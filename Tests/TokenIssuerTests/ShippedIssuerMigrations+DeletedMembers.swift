import Postgres

extension ShippedIssuerMigrations {
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

        -- Session starts take the member's lock shared, its deletion exclusive: a session starts
        -- either before the deletion, which then sees it and ends it, or after, and is refused.
        CREATE FUNCTION issuer.end_deleted_member(p_member BIGINT) RETURNS SETOF UUID
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtext('issuer.member'), hashtext(p_member::text));
            INSERT INTO issuer.deleted_members (member_id) VALUES (p_member) ON CONFLICT (member_id) DO NOTHING;
            RETURN QUERY UPDATE issuer.sessions SET ended_at = now(), end_reason = 'member-deleted'
                          WHERE member_id = p_member AND ended_at IS NULL
                      RETURNING id;
        END;
        $$;

        -- As in version 1, except that it answers NULL, and starts nothing, for a deleted member.
        CREATE OR REPLACE FUNCTION issuer.start_session(p_member BIGINT, p_device TEXT, p_provider TEXT, p_token_hash BYTEA,
                                                        p_ttl_seconds INT)
        RETURNS UUID
        LANGUAGE plpgsql AS $$
        DECLARE
            v_session UUID := gen_random_uuid();
        BEGIN
            PERFORM pg_advisory_xact_lock_shared(hashtext('issuer.member'), hashtext(p_member::text));
            IF EXISTS (SELECT 1 FROM issuer.deleted_members WHERE member_id = p_member) THEN
                RETURN NULL;
            END IF;
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
        """)
}
