import Postgres

extension ShippedMemberMigrations {
    /// An identity's `email_verified` describes its stored email and is true only when a provider
    /// vouched for that email; an email the app sent (Apple's first login) is kept unverified.
    static let emailVerification = Migration(version: 3, name: "email verified only when a provider vouched for it", sql: """
        -- Until now the flag followed the token's claim even when the token had no email and the
        -- stored one came from the app, and it was NULL for the app's email. From here on it is
        -- about the stored email: FALSE unless a provider vouched for that very address.
        UPDATE member.identities SET email_verified = FALSE WHERE email_verified IS NULL OR email IS NULL;
        ALTER TABLE member.identities
            ALTER COLUMN email_verified SET DEFAULT FALSE,
            ALTER COLUMN email_verified SET NOT NULL;

        -- As in version 2, except the email flag: the token's email with the token's flag, else the
        -- stored email with its flag, else the app's email, unverified.
        CREATE OR REPLACE FUNCTION member.login(
            p_provider TEXT, p_subject TEXT, p_email TEXT, p_email_verified BOOLEAN,
            p_private_email BOOLEAN, p_name TEXT, p_app_email TEXT, p_app_name TEXT,
            p_sealed_credential TEXT, p_timezone TEXT, p_locale TEXT)
        RETURNS TABLE (member_id BIGINT, created BOOLEAN)
        LANGUAGE plpgsql AS $$
        DECLARE
            v_member BIGINT;
            v_old_email TEXT;
            v_old_verified BOOLEAN;
            v_old_name TEXT;
            v_email TEXT;
            v_verified BOOLEAN;
            v_name TEXT;
        BEGIN
            LOOP
                SELECT i.member_id, i.email, i.email_verified, i.name INTO v_member, v_old_email, v_old_verified, v_old_name
                  FROM member.identities AS i
                 WHERE i.provider = p_provider AND i.provider_user_id = p_subject
                   FOR UPDATE;
                IF FOUND THEN
                    IF p_email IS NOT NULL THEN
                        v_email := p_email;
                        v_verified := COALESCE(p_email_verified, FALSE);
                    ELSIF v_old_email IS NOT NULL THEN
                        v_email := v_old_email;
                        v_verified := v_old_verified;
                    ELSE
                        v_email := p_app_email;
                        v_verified := FALSE;
                    END IF;
                    v_name := COALESCE(p_name, p_app_name, v_old_name);
                    UPDATE member.identities AS i
                       SET last_login_at = now(),
                           email = v_email,
                           email_verified = v_verified,
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
                         VALUES (p_provider, p_subject, v_member, COALESCE(p_email, p_app_email),
                                 p_email IS NOT NULL AND COALESCE(p_email_verified, FALSE),
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
        """)

    /// The Apple notifications handled, by `jti`, so each takes effect once; kept only as long as
    /// the token-verifier would accept the notification (see `MemberStore.handle(_:)`).
    static let appleNotificationsOnce = Migration(version: 4, name: "apple notifications handled once", sql: """
        CREATE TABLE member.apple_notifications (
            jti             TEXT PRIMARY KEY,
            issued_at       TIMESTAMPTZ NOT NULL,
            handled_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
            -- The first outcome, answered again to a replay.
            member_id       BIGINT,
            identity_ended  BOOLEAN NOT NULL DEFAULT FALSE,
            member_deleted  BOOLEAN NOT NULL DEFAULT FALSE
        );
        CREATE INDEX apple_notifications_issued ON member.apple_notifications (issued_at);
        """)
}
