-- member-service's functions: the schema's source, not its history (the tables are in
-- MemberMigrations, versioned). PostgresClient.migrate runs this whole file at every start, after
-- the migrations and under their lock, in one transaction, as the member_service role that owns
-- the schema, with search_path = member, public.
--
-- So everything here is CREATE OR REPLACE. A function whose arguments or result change is dropped
-- first (CREATE OR REPLACE cannot change them), and one no longer wanted is dropped here too, so a
-- database that ran older code ends with the same functions as a fresh one.
--
-- A change to this file ships with a new step in MemberMigrations (an empty one will do): a replica
-- leaves the functions alone only when the database records a version its code does not know, so
-- without one an older replica that restarts during the roll writes its own functions back.

-- Gone: member.login's first signature (migration 1 made it, migration 2 replaced it), its second
-- (before the provider's picture, migration 6), its third (before the login's device and client,
-- migration 8) and its fourth (before the login's attempt key, migration 10). p_picture and the
-- arguments after it have defaults, so a replica of a release before, which names the other
-- arguments only, still logs members in during a rolling upgrade.
DROP FUNCTION IF EXISTS member.login(TEXT, TEXT, TEXT, BOOLEAN, BOOLEAN, TEXT, TEXT, TEXT);
DROP FUNCTION IF EXISTS member.login(TEXT, TEXT, TEXT, BOOLEAN, BOOLEAN, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT);
DROP FUNCTION IF EXISTS member.login(TEXT, TEXT, TEXT, BOOLEAN, BOOLEAN, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT);
DROP FUNCTION IF EXISTS member.login(TEXT, TEXT, TEXT, BOOLEAN, BOOLEAN, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT);
DROP FUNCTION IF EXISTS member.login(TEXT, TEXT, TEXT, BOOLEAN, BOOLEAN, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT);

-- Rule (identity email): an identity keeps the token's email with the token's flag; a token without
-- an email keeps the stored email with its flag; with neither, the email the app sent (Apple sends
-- it once, at the first login), unverified. So the flag is true only when a provider vouched for
-- that very address. Used by login and by link. Two scalar functions (the email, its flag), which
-- PostgreSQL inlines into the statements that call them.
CREATE OR REPLACE FUNCTION member.identity_email(p_token_email TEXT, p_stored_email TEXT, p_app_email TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_token_email IS NOT NULL THEN p_token_email
                WHEN p_stored_email IS NOT NULL THEN p_stored_email
                ELSE p_app_email END
$$;
CREATE OR REPLACE FUNCTION member.identity_email_verified(p_token_email TEXT, p_token_verified BOOLEAN,
                                                          p_stored_email TEXT, p_stored_verified BOOLEAN) RETURNS BOOLEAN
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_token_email IS NOT NULL THEN COALESCE(p_token_verified, FALSE)
                WHEN p_stored_email IS NOT NULL THEN COALESCE(p_stored_verified, FALSE)
                ELSE FALSE END
$$;

-- Rule (identity name): the token's name, else the name the app sent, else the stored one. Used by
-- login and by link.
CREATE OR REPLACE FUNCTION member.identity_name(p_token_name TEXT, p_app_name TEXT, p_stored_name TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
    SELECT COALESCE(p_token_name, p_app_name, p_stored_name)
$$;

-- An event in the outbox, from inside member.login (JSON of the Swift contracts MemberCreated and
-- MemberLoggedIn); the shared Outbox (Outbox+MemberEvents.swift) publishes it after commit.
-- PL/pgSQL, not SQL: PostgreSQL 15 parses and plans an SQL function's statement at every call
-- (0.2 ms, two calls per first login: pg_stat_statements under deploy/loadtest/run), while
-- PL/pgSQL keeps the INSERT's plan for the session.
CREATE OR REPLACE FUNCTION member.enqueue(p_type TEXT, p_data JSONB) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO member.outbox (event_id, event_type, data)
    VALUES (gen_random_uuid()::text, p_type, convert_to(p_data::text, 'UTF8'));
END;
$$;

-- Rule (member profile at login), for a member who signs in again:
--   * email and name follow the identity they came from: a member's email or name that is empty,
--     or that this identity gave it, takes the identity's new one; one the member got elsewhere
--     (another identity, PATCH /api/members/me) stays;
--   * the picture follows the provider's latest one; a login without one keeps it;
--   * a time zone or locale the app sent replaces the stored one (the member-service passes only
--     ones it accepts).
-- Written, and announced with member.updated naming the fields, only when something changes, so a
-- repeat login that changes nothing reads the row and takes no lock on it.
CREATE OR REPLACE FUNCTION member.follow_login(
    p_member BIGINT, p_old_email TEXT, p_email TEXT, p_old_name TEXT, p_name TEXT,
    p_picture TEXT, p_timezone TEXT, p_locale TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    m member.members%ROWTYPE;
    v_email TEXT;
    v_name TEXT;
    v_picture TEXT;
    v_timezone TEXT;
    v_locale TEXT;
BEGIN
    SELECT * INTO m FROM member.members WHERE id = p_member;
    -- Decided on the row as read, then again on the row locked, which a concurrent change may have moved.
    FOR locked IN 0..1 LOOP
        v_email := CASE WHEN m.email IS NULL OR m.email = p_old_email THEN p_email ELSE m.email END;
        v_name := CASE WHEN m.name IS NULL OR m.name = p_old_name THEN p_name ELSE m.name END;
        v_picture := COALESCE(p_picture, m.picture_url);
        v_timezone := COALESCE(p_timezone, m.timezone);
        v_locale := COALESCE(p_locale, m.locale);
        IF v_email IS NOT DISTINCT FROM m.email AND v_name IS NOT DISTINCT FROM m.name
           AND v_picture IS NOT DISTINCT FROM m.picture_url AND v_timezone IS NOT DISTINCT FROM m.timezone
           AND v_locale IS NOT DISTINCT FROM m.locale THEN
            RETURN;
        END IF;
        EXIT WHEN locked = 1;
        SELECT * INTO m FROM member.members WHERE id = p_member FOR UPDATE;
    END LOOP;
    UPDATE member.members
       SET email = v_email, name = v_name, picture_url = v_picture, timezone = v_timezone, locale = v_locale,
           updated_at = now()
     WHERE id = p_member;
    PERFORM member.enqueue('member.updated', jsonb_build_object(
        'memberId', p_member, 'source', 'login',
        'fields', to_jsonb(array_remove(ARRAY[
            CASE WHEN v_email IS DISTINCT FROM m.email THEN 'email' END,
            CASE WHEN v_locale IS DISTINCT FROM m.locale THEN 'locale' END,
            CASE WHEN v_name IS DISTINCT FROM m.name THEN 'name' END,
            CASE WHEN v_picture IS DISTINCT FROM m.picture_url THEN 'pictureUrl' END,
            CASE WHEN v_timezone IS DISTINCT FROM m.timezone THEN 'timezone' END], NULL))));
END;
$$;

-- The login's event (MemberLoggedIn): with the app's device and what the gateway saw of the client,
-- each left out when unknown (a replica of a release before sends none).
CREATE OR REPLACE FUNCTION member.logged_in(
    p_member BIGINT, p_provider TEXT, p_existing BOOLEAN, p_device_id TEXT, p_client_address TEXT,
    p_platform TEXT, p_app_version TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM member.enqueue('member.logged-in', jsonb_strip_nulls(jsonb_build_object(
        'memberId', p_member, 'provider', p_provider, 'isExistingMember', p_existing, 'deviceId', p_device_id,
        'clientAddress', p_client_address, 'platform', p_platform, 'appVersion', p_app_version)));
END;
$$;

-- Rule (a server nonce is good once): records nonce p_id (expiring at p_expires_at, seconds since 1970) as used;
-- false when it was used before. The primary key lets exactly one of two concurrent uses in: the second waits for
-- the first's row, and is refused once that commits. MemberStore.use (a link's) and member.login (a login's) call it.
CREATE OR REPLACE FUNCTION member.use_nonce(p_id TEXT, p_expires_at BIGINT) RETURNS BOOLEAN
LANGUAGE sql AS $$
    WITH used AS (
        INSERT INTO member.used_nonces (id, expires_at) VALUES (p_id, to_timestamp(p_expires_at))
            ON CONFLICT (id) DO NOTHING RETURNING 1)
    SELECT EXISTS (SELECT FROM used)
$$;

-- What happens at login, in one round trip: find the member of the identity, or create both, and
-- write the login's events. Concurrent first logins of one identity race on the primary key: the
-- losers' inserts fail, their subtransaction (and so their new member row) rolls back, and the loop
-- finds the winner's row.
--
-- Rule (a suspended member signs in nowhere): a login of a suspended member's identity raises SQLSTATE
-- MS001 before it writes anything (MemberStore answers MEMBER_SUSPENDED), so no event tells of it. A
-- suspension locks the member's identities after its row (MemberStore+Admin.swift): a login that holds
-- its identity first commits before the suspension does (the token-issuer, told of the suspension's
-- newer generation, ends the session it starts); one that waits for its identity reads the member after
-- the suspension committed, in a statement of its own, and is refused.
--
-- Rule (a login's attempts are one login): the identity keeps its latest login (login_attempt: a SHA-256 of
-- p_attempt_key and p_device_id; login_attempt_created: whether it created the identity). An attempt that finds
-- its own there, within two minutes (the issuer's window for the session the key and device name), is a resend
-- of that login after a lost answer: it gets the first attempt's answer and writes no event, so no second
-- member.logged-in tells of one login. It keeps Apple's grant if it holds one (as any login does: the first
-- attempt may have lost the code exchange) and spends the key: the gateway resends once, so a third attempt of
-- it is a login with its event (only a holder of the gateway's NATS seed sends one, and it cannot sign in
-- unrecorded more than once a login). Of two attempts running at once, the later waits for the earlier's
-- identity row, then finds its own. A login of another key or device in between takes the identity's place: a
-- resend after that is answered as a login of an existing member. Without a key (a gateway of a release
-- before) every attempt is a login.
CREATE OR REPLACE FUNCTION member.login(
    p_provider TEXT, p_subject TEXT, p_email TEXT, p_email_verified BOOLEAN,
    p_private_email BOOLEAN, p_name TEXT, p_app_email TEXT, p_app_name TEXT,
    p_sealed_credential TEXT, p_timezone TEXT, p_locale TEXT, p_picture TEXT DEFAULT NULL,
    p_device_id TEXT DEFAULT NULL, p_client_address TEXT DEFAULT NULL, p_platform TEXT DEFAULT NULL,
    p_app_version TEXT DEFAULT NULL, p_nonce TEXT DEFAULT NULL, p_nonce_expires_at BIGINT DEFAULT NULL,
    p_attempt_key TEXT DEFAULT NULL)
RETURNS TABLE (member_id BIGINT, created BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
    v_member BIGINT;
    v_old_email TEXT;
    v_old_verified BOOLEAN;
    v_old_name TEXT;
    v_attempt BYTEA := sha256(convert_to(p_attempt_key, 'UTF8') || '\x00'::bytea || convert_to(p_device_id, 'UTF8'));
    v_resent BOOLEAN;
    v_created BOOLEAN;
    v_email TEXT;
    v_verified BOOLEAN;
    v_name TEXT;
BEGIN
    -- Rule (a server nonce is good once): the login's nonce (p_nonce) is recorded before anything else; one
    -- recorded already raises SQLSTATE 'MN001' (MemberStore answers INVALID_PROVIDER_TOKEN, nonceUsed). Of two
    -- logins with one nonce, the second waits for the first's row and is refused once it commits. A login that
    -- fails after this rolls the nonce back with the rest: MemberStore then records it in a statement of its own.
    IF p_nonce IS NOT NULL AND NOT member.use_nonce(p_nonce, p_nonce_expires_at) THEN
        RAISE EXCEPTION 'the server nonce was used already' USING ERRCODE = 'MN001';
    END IF;
    LOOP
        SELECT i.member_id, i.email, i.email_verified, i.name,
               i.login_attempt = v_attempt AND i.last_login_at > now() - interval '2 minutes',
               i.login_attempt_created
          INTO v_member, v_old_email, v_old_verified, v_old_name, v_resent, v_created
          FROM member.identities AS i
         WHERE i.provider = p_provider AND i.provider_user_id = p_subject
           FOR UPDATE;
        IF FOUND THEN
            IF EXISTS (SELECT 1 FROM member.members AS m WHERE m.id = v_member AND m.suspended_at IS NOT NULL) THEN
                RAISE EXCEPTION 'member % is suspended', v_member USING ERRCODE = 'MS001';
            END IF;
            IF v_resent THEN
                -- The one thing an attempt may hold that the other lacks: Apple's grant (each attempt exchanges the
                -- app's one-use code; the one that lost the exchange, or timed out on it, signs in without a grant).
                UPDATE member.identities AS i
                   SET sealed_credential = COALESCE(p_sealed_credential, i.sealed_credential),
                       login_attempt = NULL
                 WHERE i.provider = p_provider AND i.provider_user_id = p_subject;
                member_id := v_member;
                created := v_created;
                RETURN NEXT;
                RETURN;
            END IF;
            v_email := member.identity_email(p_email, v_old_email, p_app_email);
            v_verified := member.identity_email_verified(p_email, p_email_verified, v_old_email, v_old_verified);
            v_name := member.identity_name(p_name, p_app_name, v_old_name);
            -- Rule (provider flags and credential): what the token asserts replaces what is stored;
            -- what it leaves out stays.
            UPDATE member.identities AS i
               SET last_login_at = now(),
                   email = v_email,
                   email_verified = v_verified,
                   is_private_email = COALESCE(p_private_email, i.is_private_email),
                   name = v_name,
                   sealed_credential = COALESCE(p_sealed_credential, i.sealed_credential),
                   picture_url = COALESCE(p_picture, i.picture_url),
                   login_attempt = v_attempt,
                   login_attempt_created = FALSE
             WHERE i.provider = p_provider AND i.provider_user_id = p_subject;
            PERFORM member.follow_login(v_member, v_old_email, v_email, v_old_name, v_name, p_picture, p_timezone, p_locale);
            PERFORM member.logged_in(v_member, p_provider, TRUE, p_device_id, p_client_address, p_platform, p_app_version);
            member_id := v_member;
            created := FALSE;
            RETURN NEXT;
            RETURN;
        END IF;
        -- A first login: the member takes the identity's email and name.
        v_email := member.identity_email(p_email, NULL, p_app_email);
        v_verified := member.identity_email_verified(p_email, p_email_verified, NULL, NULL);
        v_name := member.identity_name(p_name, p_app_name, NULL);
        BEGIN
            INSERT INTO member.members (email, name, timezone, locale, picture_url)
                 VALUES (v_email, v_name, p_timezone, p_locale, p_picture)
              RETURNING id INTO v_member;
            INSERT INTO member.identities
                        (provider, provider_user_id, member_id, email, email_verified, is_private_email, name,
                         sealed_credential, picture_url, login_attempt, login_attempt_created)
                 VALUES (p_provider, p_subject, v_member, v_email, v_verified, p_private_email, v_name, p_sealed_credential,
                         p_picture, v_attempt, TRUE);
            PERFORM member.enqueue('member.created', jsonb_build_object('memberId', v_member, 'provider', p_provider));
            PERFORM member.logged_in(v_member, p_provider, FALSE, p_device_id, p_client_address, p_platform, p_app_version);
            member_id := v_member;
            created := TRUE;
            RETURN NEXT;
            RETURN;
        EXCEPTION WHEN unique_violation THEN
            -- Another login of the same identity committed first: read its row.
        END;
    END LOOP;
END;
$$;
