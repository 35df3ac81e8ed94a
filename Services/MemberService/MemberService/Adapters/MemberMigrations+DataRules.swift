import Postgres

extension MemberMigrations {
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

        -- member.login, which keeps the flag so: SQL/functions.sql.
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
