import Postgres

/// The member schema's migrations 1–4 exactly as they shipped, with the function bodies that
/// SQL/functions.sql now owns: they build a database as the code before that file left it, so the
/// upgrade test can show such a database ends with the same functions as a fresh one.
enum ShippedMemberMigrations {
    static let schema = "member"

    static let all: [Migration] = [
        Migration(version: 1, name: "members and identities", sql: """
            CREATE TABLE member.members (
                id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                email       TEXT,
                name        TEXT,
                timezone    TEXT,
                locale      TEXT,
                created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
                updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
            );

            CREATE TABLE member.identities (
                provider          TEXT NOT NULL,
                provider_user_id  TEXT NOT NULL,
                member_id         BIGINT NOT NULL REFERENCES member.members (id) ON DELETE CASCADE,
                email             TEXT,
                email_verified    BOOLEAN,
                is_private_email  BOOLEAN,
                name              TEXT,
                linked_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
                last_login_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
                PRIMARY KEY (provider, provider_user_id)
            );
            CREATE INDEX identities_member_id ON member.identities (member_id);

            -- Find or create in one round trip. Concurrent first logins of one identity race on
            -- the primary key: the losers' inserts fail, their subtransaction (and so their new
            -- member row) rolls back, and the loop finds the winner's row.
            CREATE FUNCTION member.login(
                p_provider TEXT, p_subject TEXT, p_email TEXT, p_email_verified BOOLEAN,
                p_private_email BOOLEAN, p_name TEXT, p_timezone TEXT, p_locale TEXT)
            RETURNS TABLE (member_id BIGINT, created BOOLEAN)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_member BIGINT;
            BEGIN
                LOOP
                    UPDATE member.identities AS i
                       SET last_login_at = now(),
                           email = COALESCE(p_email, i.email),
                           email_verified = COALESCE(p_email_verified, i.email_verified),
                           is_private_email = COALESCE(p_private_email, i.is_private_email),
                           name = COALESCE(p_name, i.name)
                     WHERE i.provider = p_provider AND i.provider_user_id = p_subject
                 RETURNING i.member_id INTO v_member;
                    IF FOUND THEN
                        member_id := v_member;
                        created := FALSE;
                        RETURN NEXT;
                        RETURN;
                    END IF;
                    BEGIN
                        INSERT INTO member.members (email, name, timezone, locale)
                             VALUES (p_email, p_name, p_timezone, p_locale)
                          RETURNING id INTO v_member;
                        INSERT INTO member.identities
                                    (provider, provider_user_id, member_id, email, email_verified, is_private_email, name)
                             VALUES (p_provider, p_subject, v_member, p_email, p_email_verified, p_private_email, p_name);
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
            """),
        Migration(version: 2, name: "credentials, email flags, one identity per provider, outbox", sql: """
            -- linked_at is the first login through an identity, last_login_at the latest.
            ALTER TABLE member.identities
                ADD COLUMN sealed_credential TEXT,
                ADD COLUMN email_disabled BOOLEAN NOT NULL DEFAULT FALSE;
            -- A member has at most one identity per provider (unlinking names the provider); the
            -- index also serves every lookup by member.
            DROP INDEX member.identities_member_id;
            CREATE UNIQUE INDEX identities_member_provider ON member.identities (member_id, provider);

            -- Events written in the same transaction as the change they announce, published to
            -- JetStream after commit and deleted once acknowledged (see OutboxRelay).
            CREATE TABLE member.outbox (
                id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                event_id      TEXT NOT NULL,
                event_type    TEXT NOT NULL,
                data          BYTEA NOT NULL,
                created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
                attempts      INT NOT NULL DEFAULT 0,
                available_at  TIMESTAMPTZ NOT NULL DEFAULT now()
            );
            CREATE INDEX outbox_available ON member.outbox (available_at, id);

            -- The event of a login, in the outbox, from inside member.login (JSON of the Swift contracts
            -- MemberCreated and MemberLoggedIn).
            CREATE FUNCTION member.enqueue(p_type TEXT, p_data JSONB) RETURNS VOID
            LANGUAGE sql AS $$
                INSERT INTO member.outbox (event_id, event_type, data)
                VALUES (gen_random_uuid()::text, p_type, convert_to(p_data::text, 'UTF8'));
            $$;

            -- Find or create, as in version 1, plus: the sealed provider credential; the app's name and
            -- email (Apple's first login), which fill gaps but never replace what a token asserted;
            -- the member's email and name follow the identity they came from; the login's events.
            DROP FUNCTION member.login(TEXT, TEXT, TEXT, BOOLEAN, BOOLEAN, TEXT, TEXT, TEXT);
            CREATE FUNCTION member.login(
                p_provider TEXT, p_subject TEXT, p_email TEXT, p_email_verified BOOLEAN,
                p_private_email BOOLEAN, p_name TEXT, p_app_email TEXT, p_app_name TEXT,
                p_sealed_credential TEXT, p_timezone TEXT, p_locale TEXT)
            RETURNS TABLE (member_id BIGINT, created BOOLEAN)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_member BIGINT;
                v_old_email TEXT;
                v_old_name TEXT;
                v_email TEXT;
                v_name TEXT;
            BEGIN
                LOOP
                    SELECT i.member_id, i.email, i.name INTO v_member, v_old_email, v_old_name
                      FROM member.identities AS i
                     WHERE i.provider = p_provider AND i.provider_user_id = p_subject
                       FOR UPDATE;
                    IF FOUND THEN
                        v_email := COALESCE(p_email, v_old_email, p_app_email);
                        v_name := COALESCE(p_name, p_app_name, v_old_name);
                        UPDATE member.identities AS i
                           SET last_login_at = now(),
                               email = v_email,
                               email_verified = COALESCE(p_email_verified, i.email_verified),
                               is_private_email = COALESCE(p_private_email, i.is_private_email),
                               name = v_name,
                               sealed_credential = COALESCE(p_sealed_credential, i.sealed_credential)
                         WHERE i.provider = p_provider AND i.provider_user_id = p_subject;
                        -- Written only when something changes, so a repeat login costs one row update.
                        UPDATE member.members AS m
                           SET email = CASE WHEN m.email IS NULL OR m.email = v_old_email THEN v_email ELSE m.email END,
                               name = CASE WHEN m.name IS NULL OR m.name = v_old_name THEN v_name ELSE m.name END,
                               updated_at = now()
                         WHERE m.id = v_member
                           AND ((v_email IS DISTINCT FROM m.email AND (m.email IS NULL OR m.email = v_old_email))
                             OR (v_name IS DISTINCT FROM m.name AND (m.name IS NULL OR m.name = v_old_name)));
                        PERFORM member.enqueue('member.logged-in', jsonb_build_object(
                            'memberId', v_member, 'provider', p_provider, 'isExistingMember', TRUE));
                        member_id := v_member;
                        created := FALSE;
                        RETURN NEXT;
                        RETURN;
                    END IF;
                    BEGIN
                        INSERT INTO member.members (email, name, timezone, locale)
                             VALUES (COALESCE(p_email, p_app_email), COALESCE(p_name, p_app_name), p_timezone, p_locale)
                          RETURNING id INTO v_member;
                        INSERT INTO member.identities
                                    (provider, provider_user_id, member_id, email, email_verified, is_private_email, name,
                                     sealed_credential)
                             VALUES (p_provider, p_subject, v_member, COALESCE(p_email, p_app_email), p_email_verified,
                                     p_private_email, COALESCE(p_name, p_app_name), p_sealed_credential);
                        PERFORM member.enqueue('member.created', jsonb_build_object('memberId', v_member, 'provider', p_provider));
                        PERFORM member.enqueue('member.logged-in', jsonb_build_object(
                            'memberId', v_member, 'provider', p_provider, 'isExistingMember', FALSE));
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
            """),
        emailVerification,
        appleNotificationsOnce,
    ]
}
