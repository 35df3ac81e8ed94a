-- token-issuer's functions and triggers: the schema's source, not its history (the tables are in
-- IssuerMigrations, versioned). PostgresClient.migrate runs this whole file at every start, after
-- the migrations and under their lock, in one transaction, as the token_issuer role that owns the
-- schema, with search_path = issuer, public.
--
-- So everything here is CREATE OR REPLACE. A function whose arguments or result change is dropped
-- first (CREATE OR REPLACE cannot change them), and one no longer wanted is dropped here too, so a
-- database that ran older code ends with the same functions as a fresh one.
--
-- A change to this file ships with a new step in IssuerMigrations (an empty one will do): a replica
-- leaves the functions alone only when the database records a version its code does not know, so
-- without one an older replica that restarts during the roll writes its own functions back.

-- Rule (one session per device): a login on a device ends the member's live session there
-- ('replaced') and starts a new one with its first refresh token, in one round trip. The device's
-- advisory lock serialises concurrent logins of one member on one device.
-- Rule (a deleted member stays deleted): a login that found the member just before its deletion
-- may ask for a session just after it, so a deleted member gets none (NULL, nothing started).
-- Session starts take the member's lock shared, its deletion (end_deleted_member) exclusive: a
-- session starts either before the deletion, which then sees it and ends it, or after, and is refused.
-- Rule (recent sign-in): the session records when its provider sign-in happened (`p_signed_in_at`, seconds
-- since 1970, as the issuer signs it into auth_time; now when not given) as its signed_in_at, which every
-- refresh hands back unchanged. The issuer never passes a time later than its own now; a minute ahead of
-- the database's is allowed (the clocks of two hosts), no more, so a refresh signs what the login signed.
-- Rule (a suspended member starts no session): while the member's suspension mark holds (see
-- apply_member_suspension, which takes the member's lock exclusive as the deletion does), a start raises
-- SQLSTATE 'IS001' (SessionStore answers MEMBER_SUSPENDED): a session starts either before the
-- suspension, which then ends it, or after, and is refused. An error, not a NULL: a replica of the release
-- before reads a NULL as a deleted member, an error as a failure, and neither starts a session.
-- Rule (a session remembers its app): p_platform and p_app_version (cleaned and cut by the issuer) are kept
-- for the session lists.
-- Rule (refresh tokens by generation): the issuer names the session (p_session), which gets a random secret
-- (issuer.new_token_secret; p_token_secret only from tests, which make tags of their own); its first refresh token is
-- the session's generation 0, which no row holds (Domain/RefreshToken.swift). open_session returns the session with its
-- generation and that generation's tag.
-- Rule (a login's attempts are one login): the session's ID is derived from the login's key (never its secret, which
-- is random: the key and a login's attempt key make no token), so an attempt that finds it already started that
-- login's session, which it returns as it stands now (its generation and tag under the secret it was given),
-- replacing nothing: a late attempt would otherwise end the session whose tokens the app holds, and one that
-- handed back generation 0 of a session that has moved on would hand out a reuse. Ended since, or started more than
-- two minutes ago (a login's attempts come within its callers' patience: the gateway's SERVICE_TIMEOUT, at most
-- 60 s, and one resend; a later one is no attempt of it and gets no live token): no row. The row is read FOR SHARE,
-- so a refresh of it under way commits first and its generation is the one handed back.
-- A replica of the release before calls start_session, naming neither and passing its first token's hash
-- (p_token_hash), kept in refresh_tokens; it gets the session's ID alone. Until p_signed_in_at was added it took
-- five arguments, until p_platform and p_app_version six, and until p_session eight: those signatures are dropped,
-- so a call that names only those takes the defaults.
-- A new session's secret (Rule (refresh tokens by generation)): 16 bytes of SHA-256 over two random UUIDs (PostgreSQL's
-- strong random source, 244 bits). Made here, so it never leaves the database: no statement carries it.
CREATE OR REPLACE FUNCTION issuer.new_token_secret() RETURNS BYTEA
LANGUAGE sql VOLATILE AS $$
    SELECT substring(sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())) FROM 1 FOR 16)
$$;

DROP FUNCTION IF EXISTS issuer.start_session(BIGINT, TEXT, TEXT, BYTEA, INT);
DROP FUNCTION IF EXISTS issuer.start_session(BIGINT, TEXT, TEXT, BYTEA, INT, BIGINT);
DROP FUNCTION IF EXISTS issuer.start_session(BIGINT, TEXT, TEXT, BYTEA, INT, BIGINT, TEXT, TEXT);
CREATE OR REPLACE FUNCTION issuer.open_session(p_member BIGINT, p_device TEXT, p_provider TEXT, p_ttl_seconds INT,
                                               p_signed_in_at BIGINT, p_platform TEXT, p_app_version TEXT,
                                               p_session UUID, p_token_secret BYTEA, p_token_hash BYTEA DEFAULT NULL)
RETURNS TABLE (id UUID, generation BIGINT, tag BYTEA)
LANGUAGE plpgsql AS $$
DECLARE
    v_session UUID := COALESCE(p_session, gen_random_uuid());
    -- A session of a replica of the release before (no p_session) gets its secret at its first refresh.
    v_secret BYTEA := CASE WHEN p_session IS NOT NULL THEN COALESCE(p_token_secret, issuer.new_token_secret()) END;
    v_started UUID;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtext('issuer.member'), hashtext(p_member::text));
    IF EXISTS (SELECT 1 FROM issuer.deleted_members WHERE member_id = p_member) THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM issuer.member_suspensions m WHERE m.member_id = p_member AND m.suspended) THEN
        RAISE EXCEPTION 'member % is suspended', p_member USING ERRCODE = 'IS001';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext(p_member::text), hashtext(p_device));
    IF p_session IS NOT NULL THEN
        v_started := (SELECT s.id FROM issuer.sessions s WHERE s.id = p_session);
    ELSE
        v_started := (SELECT t.session_id FROM issuer.refresh_tokens t WHERE t.token_hash = p_token_hash);
    END IF;
    IF v_started IS NOT NULL THEN
        RETURN QUERY SELECT s.id, s.generation, issuer.token_tag(s.token_secret, s.generation) FROM issuer.sessions s
                      WHERE s.id = v_started AND s.member_id = p_member AND s.device_id = p_device AND s.ended_at IS NULL
                        AND (p_session IS NULL OR s.token_secret IS NOT NULL) AND s.created_at > now() - interval '2 minutes'
                        FOR SHARE OF s;
        RETURN;
    END IF;
    UPDATE issuer.sessions s SET ended_at = clock_timestamp(), end_reason = 'replaced'
     WHERE s.member_id = p_member AND s.device_id = p_device AND s.ended_at IS NULL;
    INSERT INTO issuer.sessions (id, member_id, device_id, provider, signed_in_at, expires_at, platform, app_version, token_secret)
         VALUES (v_session, p_member, p_device, p_provider, LEAST(COALESCE(to_timestamp(p_signed_in_at), now()), now() + interval '1 minute'),
                 now() + make_interval(secs => p_ttl_seconds), p_platform, p_app_version, v_secret);
    IF p_session IS NULL THEN
        INSERT INTO issuer.refresh_tokens (token_hash, session_id, expires_at)
             VALUES (p_token_hash, v_session, now() + make_interval(secs => p_ttl_seconds));
    END IF;
    RETURN QUERY SELECT v_session, 0::BIGINT, issuer.token_tag(v_secret, 0);
END;
$$;

-- open_session for a replica of the release before (see above): the session's ID, NULL when none.
CREATE OR REPLACE FUNCTION issuer.start_session(p_member BIGINT, p_device TEXT, p_provider TEXT, p_token_hash BYTEA,
                                                p_ttl_seconds INT, p_signed_in_at BIGINT DEFAULT NULL,
                                                p_platform TEXT DEFAULT NULL, p_app_version TEXT DEFAULT NULL,
                                                p_session UUID DEFAULT NULL, p_token_secret BYTEA DEFAULT NULL)
RETURNS UUID
LANGUAGE sql AS $$
    SELECT o.id FROM issuer.open_session(p_member, p_device, p_provider, p_ttl_seconds, p_signed_in_at, p_platform,
                                         p_app_version, p_session, p_token_secret, p_token_hash) o
$$;

-- Records that the member was deleted (kept as long as a refresh token lives: SessionStore.cleanUp)
-- and ends its live sessions ('member-deleted'); returns the IDs it ended. See open_session.
CREATE OR REPLACE FUNCTION issuer.end_deleted_member(p_member BIGINT) RETURNS SETOF UUID
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('issuer.member'), hashtext(p_member::text));
    INSERT INTO issuer.deleted_members (member_id) VALUES (p_member) ON CONFLICT (member_id) DO NOTHING;
    RETURN QUERY UPDATE issuer.sessions SET ended_at = clock_timestamp(), end_reason = 'member-deleted'
                  WHERE member_id = p_member AND ended_at IS NULL
              RETURNING id;
END;
$$;

-- Rule (suspension): the member-service suspends a member or lifts it and tells the issuer (its call, and
-- member.suspended / member.unsuspended as the backstop), each change with the member's suspension
-- generation. A change is applied only when its generation is newer than the mark's, so a late or repeated
-- call never undoes a newer change. While the mark says suspended, open_session refuses the member (the
-- lock is the deletion's: exclusive here, shared there) and its live sessions end ('suspended'), their
-- session.ended events written by the trigger below; lifting it ends nothing and restarts nothing (the ended
-- sessions stay ended; new logins work).
-- Answers whether this call changed the mark, whether the member is suspended now (the mark in force), and the
-- sessions the suspension in force ended within p_window_seconds (its access tokens' lifetime), whichever
-- call or event ended them: one row per session, or one row with a NULL session when there are none.
CREATE OR REPLACE FUNCTION issuer.apply_member_suspension(p_member BIGINT, p_suspended BOOLEAN, p_generation BIGINT,
                                                          p_window_seconds INT)
RETURNS TABLE (applied BOOLEAN, suspended BOOLEAN, session_id UUID)
LANGUAGE plpgsql AS $$
DECLARE
    v_mark issuer.member_suspensions%ROWTYPE;
    v_found BOOLEAN := false;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('issuer.member'), hashtext(p_member::text));
    INSERT INTO issuer.member_suspensions AS m (member_id, suspended, generation)
         VALUES (p_member, p_suspended, p_generation)
    ON CONFLICT (member_id) DO UPDATE SET suspended = EXCLUDED.suspended, generation = EXCLUDED.generation, changed_at = now()
         WHERE m.generation < EXCLUDED.generation;
    applied := FOUND;
    SELECT * INTO v_mark FROM issuer.member_suspensions m WHERE m.member_id = p_member;
    suspended := v_mark.suspended;
    IF v_mark.suspended THEN
        -- Nothing is live unless this call suspended the member: starts are refused while the mark holds.
        UPDATE issuer.sessions s SET ended_at = clock_timestamp(), end_reason = 'suspended'
         WHERE s.member_id = p_member AND s.ended_at IS NULL;
        FOR session_id IN
            SELECT s.id FROM issuer.sessions s
             WHERE s.member_id = p_member AND s.end_reason = 'suspended' AND s.ended_at >= v_mark.changed_at
               AND s.ended_at >= now() - make_interval(secs => p_window_seconds)
        LOOP
            v_found := true;
            RETURN NEXT;
        END LOOP;
    END IF;
    IF NOT v_found THEN
        session_id := NULL;
        RETURN NEXT;
    END IF;
END;
$$;

-- Until `outcome` was added the result was (status, session_id, member_id), and until `signed_in_at`
-- was, (outcome, status, session_id, member_id): those shapes are dropped once, since CREATE OR REPLACE
-- cannot change a result. A replica of the release before reads the columns it knows by name.
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_proc
                WHERE oid = to_regprocedure('issuer.rotate_refresh_token(bytea, bytea, text, integer, integer)')
                  AND NOT ('signed_in_at' = ANY (proargnames))) THEN
        DROP FUNCTION issuer.rotate_refresh_token(BYTEA, BYTEA, TEXT, INT, INT);
    END IF;
END;
$$;

-- Why a session refuses a refresh, in the order every refresh asks it (rotate_refresh_token, refresh_second_look,
-- rotate_legacy_refresh_token): ended ('suspended' while the suspension that ended it holds, else 'ended'), expired
-- (the session, or the token at p_token_expires_at), another device than p_device names; NULL when none.
CREATE OR REPLACE FUNCTION issuer.session_refusal(p_session issuer.sessions, p_device TEXT,
                                                  p_token_expires_at TIMESTAMPTZ DEFAULT 'infinity')
RETURNS TEXT
LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN p_session.ended_at IS NOT NULL THEN
            CASE WHEN p_session.end_reason = 'suspended'
                      AND EXISTS (SELECT 1 FROM issuer.member_suspensions m WHERE m.member_id = p_session.member_id AND m.suspended)
                 THEN 'suspended' ELSE 'ended' END
        WHEN p_session.expires_at <= now() OR p_token_expires_at <= now() THEN 'expired'
        WHEN p_device IS NOT NULL AND p_device <> p_session.device_id THEN 'wrong-device'
    END
$$;

-- The refresh of the release before generations, kept for a replica of it left running and for a step back to it
-- (older code leaves the newer functions alone); this release rotates those tokens with rotate_legacy_refresh_token.
--
-- What happens at a refresh, in one round trip. Only SHA-256 hashes of refresh tokens are kept; a
-- rotated token points at its successor's hash, which a duplicate refresh re-derives. `outcome`
-- (RefreshOutcome in Swift, which decides the reply) is one of:
--   'unknown'       no such token;
--   'ended'         its session ended;
--   'suspended'     Rule (suspension): its session ended because the member was suspended, which it still
--                   is (once lifted, 'ended');
--   'expired'       the token or its session expired;
--   'wrong-device'  the caller named another device than the session's;
--   'rotated'       Rule (rotation): the first use of a token yields its successor and extends the session;
--   'replayed'      Rule (grace): a duplicate inside the grace window that derived the same successor
--                   gets that successor again (an app that lost the answer retries);
--   'reused'        Rule (reuse): a rotated token used after that ends the session ('reuse'), since
--                   someone else may hold the token.
-- A grant ('rotated', 'replayed') hands back the session's sign-in time (`signed_in_at`): Rule (recent
-- sign-in), a refresh keeps the auth_time of the login.
-- `status` ('rotated', 'reused' or 'invalid') is what replicas of the release before `outcome` read.
CREATE OR REPLACE FUNCTION issuer.rotate_refresh_token(
    p_token_hash BYTEA, p_successor_hash BYTEA, p_device TEXT, p_grace_seconds INT, p_ttl_seconds INT)
RETURNS TABLE (outcome TEXT, status TEXT, session_id UUID, member_id BIGINT, signed_in_at BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    v_token issuer.refresh_tokens%ROWTYPE;
    v_session issuer.sessions%ROWTYPE;
BEGIN
    SELECT * INTO v_token FROM issuer.refresh_tokens t WHERE t.token_hash = p_token_hash FOR UPDATE;
    IF NOT FOUND THEN
        outcome := 'unknown';
    ELSE
        SELECT * INTO v_session FROM issuer.sessions s WHERE s.id = v_token.session_id FOR UPDATE;
        outcome := issuer.session_refusal(v_session, p_device, v_token.expires_at);
        IF outcome IS NOT NULL THEN
            NULL;
        ELSIF v_token.rotated_at IS NULL THEN
            UPDATE issuer.refresh_tokens t SET rotated_at = now(), successor_hash = p_successor_hash
             WHERE t.token_hash = p_token_hash;
            INSERT INTO issuer.refresh_tokens (token_hash, session_id, expires_at)
                 VALUES (p_successor_hash, v_session.id, now() + make_interval(secs => p_ttl_seconds));
            UPDATE issuer.sessions s SET last_used_at = now(), expires_at = now() + make_interval(secs => p_ttl_seconds)
             WHERE s.id = v_session.id;
            outcome := 'rotated';
        ELSIF v_token.rotated_at > now() - make_interval(secs => p_grace_seconds)
              AND v_token.successor_hash = p_successor_hash THEN
            outcome := 'replayed';
        ELSE
            UPDATE issuer.sessions s SET ended_at = clock_timestamp(), end_reason = 'reuse'
             WHERE s.id = v_session.id;
            outcome := 'reused';
        END IF;
        IF outcome IN ('rotated', 'replayed') THEN
            session_id := v_session.id;
            member_id := v_session.member_id;
            signed_in_at := floor(extract(epoch FROM COALESCE(v_session.signed_in_at, v_session.created_at)))::BIGINT;
        END IF;
    END IF;
    status := CASE outcome WHEN 'rotated' THEN 'rotated' WHEN 'replayed' THEN 'rotated' WHEN 'reused' THEN 'reused'
                           ELSE 'invalid' END;
    RETURN NEXT;
END;
$$;

-- Rule (refresh tokens by generation): the tag of a session's generation, which its refresh token of that
-- generation carries: the first 16 bytes of SHA-256 over the session's secret and the generation (big-endian), as
-- RefreshTokenKeys.tag makes it. Only the database holds the secret, so only it makes the tag of a generation to
-- come; NULL for a session without a secret (one of an earlier release, before its first refresh).
CREATE OR REPLACE FUNCTION issuer.token_tag(p_secret BYTEA, p_generation BIGINT) RETURNS BYTEA
LANGUAGE sql IMMUTABLE AS $$ SELECT substring(sha256(p_secret || int8send(p_generation)) FROM 1 FOR 16) $$;

-- Rule (refresh tokens by generation): a refresh token names its session, its generation and that generation's
-- tag under the issuer's MAC (Domain/RefreshToken.swift), checked before anything is read. SessionStore rotates with one UPDATE of the
-- session row (generation = the token's, live, unexpired, the caller's device): a HOT update, the refresh's only
-- statement. When it matches no row, this second look, with the row locked, tells what happened (the outcomes
-- of rotate_refresh_token below); a token whose tag is not its generation's of the session is no token of it
-- ('unknown', ending nothing: only the key made its MAC, so whoever made it holds the key without the database):
--   the token's generation is the session's        'rotated' here (the first look raced a change that undid
--                                                  nothing: the rotation is done now);
--   the one before, rotated within p_grace_seconds 'replayed': the successor is the session's generation, the
--                                                  same token the first refresh got (Rule (grace));
--   older                                          'reused': the session ends (Rule (reuse)); the MAC proved the
--                                                  token genuine, so no made-up token ends a session;
--   newer (a database restored to before it)       'unknown'.
-- A grant hands back the member, the sign-in time (Rule (recent sign-in)), the successor's generation and its tag.
-- The UPDATE and this look are two transactions: a duplicate of generation N that missed the UPDATE (its twin moved
-- the session to N+1) and whose look comes only after the app's next refresh as well (N+1 to N+2, inside that one
-- round trip) finds N two behind, and counts as a reuse.
-- Shapes these two functions had while this release was made (a database that ran its intermediate commits):
-- dropped, so such a database ends with the functions a fresh one has.
DROP FUNCTION IF EXISTS issuer.refresh_second_look(UUID, BIGINT, TEXT, INT, INT);
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_proc WHERE oid = to_regprocedure('issuer.refresh_second_look(uuid, bigint, bytea, text, integer, integer)')
                                     AND NOT ('tag' = ANY (proargnames))) THEN
        DROP FUNCTION issuer.refresh_second_look(UUID, BIGINT, BYTEA, TEXT, INT, INT);
    END IF;
    IF EXISTS (SELECT FROM pg_proc WHERE oid = to_regprocedure('issuer.rotate_legacy_refresh_token(bytea, bytea, text, integer, integer)')
                                     AND NOT ('tag' = ANY (proargnames))) THEN
        DROP FUNCTION issuer.rotate_legacy_refresh_token(BYTEA, BYTEA, TEXT, INT, INT);
    END IF;
END;
$$;
CREATE OR REPLACE FUNCTION issuer.refresh_second_look(
    p_session UUID, p_generation BIGINT, p_tag BYTEA, p_device TEXT, p_grace_seconds INT, p_ttl_seconds INT)
RETURNS TABLE (outcome TEXT, member_id BIGINT, signed_in_at BIGINT, generation BIGINT, tag BYTEA)
LANGUAGE plpgsql AS $$
DECLARE
    v_session issuer.sessions%ROWTYPE;
BEGIN
    SELECT * INTO v_session FROM issuer.sessions s WHERE s.id = p_session FOR UPDATE;
    IF NOT FOUND OR v_session.generation < p_generation
       OR issuer.token_tag(v_session.token_secret, p_generation) IS DISTINCT FROM p_tag THEN
        outcome := 'unknown';
    ELSE
        outcome := issuer.session_refusal(v_session, p_device);
    END IF;
    IF outcome IS NOT NULL THEN
        NULL;
    ELSIF v_session.generation = p_generation THEN
        UPDATE issuer.sessions s SET generation = s.generation + 1, rotated_at = now(), last_used_at = now(),
                                     expires_at = now() + make_interval(secs => p_ttl_seconds)
         WHERE s.id = p_session RETURNING s.generation INTO v_session.generation;
        outcome := 'rotated';
    ELSIF v_session.generation = p_generation + 1 AND v_session.rotated_at > now() - make_interval(secs => p_grace_seconds) THEN
        outcome := 'replayed';
    ELSE
        UPDATE issuer.sessions s SET ended_at = clock_timestamp(), end_reason = 'reuse' WHERE s.id = p_session;
        outcome := 'reused';
    END IF;
    IF outcome IN ('rotated', 'replayed') THEN
        member_id := v_session.member_id;
        signed_in_at := floor(extract(epoch FROM COALESCE(v_session.signed_in_at, v_session.created_at)))::BIGINT;
        generation := v_session.generation;
        tag := issuer.token_tag(v_session.token_secret, v_session.generation);
    END IF;
    RETURN NEXT;
END;
$$;

-- A refresh token issued before generations (a row of refresh_tokens, by its hash): rotate_refresh_token's
-- rules, but its first use rotates the session into a generation instead of writing a successor row, and marks
-- the row rotated at the same moment as the session (rotated_at, no successor_hash), and gives the session a
-- secret (token_secret) if it has none; the grant hands back the generation's tag. So a duplicate inside the
-- grace window, while that rotation is still the session's last, gets the same generation ('replayed'); a row
-- rotated before generations replays its stored successor as then (the grant's generation NULL: the successor is
-- p_successor_hash's token). Removed when the last such token can have expired (REFRESH_TOKEN_TTL after the
-- release; docs/production.md, Upgrades and migrations).
CREATE OR REPLACE FUNCTION issuer.rotate_legacy_refresh_token(
    p_token_hash BYTEA, p_successor_hash BYTEA, p_device TEXT, p_grace_seconds INT, p_ttl_seconds INT)
RETURNS TABLE (outcome TEXT, session_id UUID, member_id BIGINT, signed_in_at BIGINT, generation BIGINT, tag BYTEA)
LANGUAGE plpgsql AS $$
DECLARE
    v_token issuer.refresh_tokens%ROWTYPE;
    v_session issuer.sessions%ROWTYPE;
BEGIN
    SELECT * INTO v_token FROM issuer.refresh_tokens t WHERE t.token_hash = p_token_hash FOR UPDATE;
    IF NOT FOUND THEN
        outcome := 'unknown';
    ELSE
        SELECT * INTO v_session FROM issuer.sessions s WHERE s.id = v_token.session_id FOR UPDATE;
        outcome := issuer.session_refusal(v_session, p_device, v_token.expires_at);
        IF outcome IS NOT NULL THEN
            NULL;
        ELSIF v_token.rotated_at IS NULL THEN
            UPDATE issuer.refresh_tokens t SET rotated_at = now() WHERE t.token_hash = p_token_hash;
            UPDATE issuer.sessions s SET generation = s.generation + 1, rotated_at = now(), last_used_at = now(),
                                         expires_at = now() + make_interval(secs => p_ttl_seconds),
                                         token_secret = COALESCE(s.token_secret, issuer.new_token_secret())
             WHERE s.id = v_session.id
            RETURNING s.generation, issuer.token_tag(s.token_secret, s.generation) INTO generation, tag;
            outcome := 'rotated';
        ELSIF v_token.rotated_at > now() - make_interval(secs => p_grace_seconds)
              AND v_token.successor_hash IS NULL AND v_session.rotated_at = v_token.rotated_at THEN
            generation := v_session.generation;
            tag := issuer.token_tag(v_session.token_secret, v_session.generation);
            outcome := 'replayed';
        ELSIF v_token.rotated_at > now() - make_interval(secs => p_grace_seconds)
              AND v_token.successor_hash = p_successor_hash THEN
            outcome := 'replayed';
        ELSE
            UPDATE issuer.sessions s SET ended_at = clock_timestamp(), end_reason = 'reuse' WHERE s.id = v_session.id;
            outcome := 'reused';
        END IF;
        IF outcome IN ('rotated', 'replayed') THEN
            session_id := v_session.id;
            member_id := v_session.member_id;
            signed_in_at := floor(extract(epoch FROM COALESCE(v_session.signed_in_at, v_session.created_at)))::BIGINT;
        END IF;
    END IF;
    RETURN NEXT;
END;
$$;

-- Rule (every end is announced): whatever ends a session (logout, replacement, reuse, deletion,
-- an identity's end, a suspension, an admin), `session.ended` goes to the outbox in the same
-- transaction, and a reuse also `refresh-token.reused`; the shared Outbox (Outbox+SessionEvents.swift)
-- publishes them after commit.
-- Rule (a session's end is as late as it can be told): every end is stamped clock_timestamp(), read when
-- the row is updated, not now() (its transaction's start, maybe long before a lock wait). A token a
-- refresh signs just after its rotation may still carry an iat a few milliseconds later: gateways, which
-- compare tokens' iat with the event's time (this end), add a margin.
CREATE OR REPLACE FUNCTION issuer.record_session_end() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.end_reason = 'reuse' THEN
        INSERT INTO issuer.outbox (event, session_id, member_id, reason, created_at)
             VALUES ('refresh-token.reused', NEW.id, NEW.member_id, NEW.end_reason, NEW.ended_at);
    END IF;
    INSERT INTO issuer.outbox (event, session_id, member_id, reason, created_at)
         VALUES ('session.ended', NEW.id, NEW.member_id, NEW.end_reason, NEW.ended_at);
    RETURN NULL;
END;
$$;
CREATE OR REPLACE TRIGGER sessions_ended AFTER UPDATE OF ended_at ON issuer.sessions
    FOR EACH ROW WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL)
    EXECUTE FUNCTION issuer.record_session_end();
