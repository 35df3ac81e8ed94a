import Postgres

/// The `member` schema, in versioned steps. Applied at start; never edit a step that shipped.
enum MemberMigrations {
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
    ]
}
