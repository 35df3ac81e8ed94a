import Postgres

/// The `member` schema's tables, indexes and constraints, in versioned steps. Applied at start; never
/// edit a step that shipped.
///
/// Functions are source, not history: `SQL/functions.sql` defines them and is applied after these
/// steps at every start. The steps that once defined functions no longer do (a database records a
/// step's version and name, not its text, so one that ran them is not affected; the file replaces
/// what they made).
enum MemberMigrations {
    static let schema = "member"

    /// `SQL/functions.sql`, compiled into the binary.
    static let functions = String(decoding: PackageResources.functions_sql, as: UTF8.self)

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
            -- member.login: SQL/functions.sql.
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
            -- JetStream after commit and deleted once acknowledged (the shared Outbox).
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

            -- member.enqueue and member.login: SQL/functions.sql.
            """),
        emailVerification,
        appleNotificationsOnce,
        // A functions.sql change only (see its header): member.enqueue in PL/pgSQL.
        Migration(version: 5, name: "outbox writer keeps its plan", sql: "-- functions.sql: member.enqueue in PL/pgSQL"),
        Migration(version: 6, name: "pictures", sql: """
            -- The provider's picture (an https URL), per identity and the member's (the latest login's).
            ALTER TABLE member.members ADD COLUMN picture_url TEXT;
            ALTER TABLE member.identities ADD COLUMN picture_url TEXT;

            -- member.login with p_picture, member.follow_login: SQL/functions.sql.
            """),
        Migration(version: 7, name: "server nonces used", sql: """
            -- Rule (a server nonce is good once): a login or link that carries one records it here first,
            -- in a statement of its own (it stays used whatever the rest comes to); the primary key lets
            -- exactly one of two concurrent uses in. Rows go once the nonce has expired (MemberServer's sweep).
            CREATE TABLE member.used_nonces (
                id          TEXT PRIMARY KEY,
                expires_at  TIMESTAMPTZ NOT NULL
            );
            CREATE INDEX used_nonces_expires ON member.used_nonces (expires_at);
            """),
        Migration(version: 8, name: "suspensions, email search, a login's client in its event", sql: """
            -- An admin's suspension (issue 32): the member is `suspended` while suspended_at is set, by the
            -- admin and for the reason recorded beside it (cleared when lifted; the events keep the history).
            -- suspension_generation counts the suspensions and liftings: the token-issuer applies a change
            -- only when its generation is newer than the one it holds, so a late call never undoes a newer one.
            ALTER TABLE member.members
                ADD COLUMN suspended_at           TIMESTAMPTZ,
                ADD COLUMN suspended_by           TEXT,
                ADD COLUMN suspension_reason      TEXT,
                ADD COLUMN suspension_generation  BIGINT NOT NULL DEFAULT 0;

            -- An admin's search by email, compared case-insensitively, in the member's and its identities'.
            CREATE INDEX members_email_lower ON member.members (lower(email));
            CREATE INDEX identities_email_lower ON member.identities (lower(email));

            -- member.login refusing a suspended member and carrying the login's device and client into
            -- member.logged-in: SQL/functions.sql.
            """),
        Migration(version: 9, name: "a login spends its server nonce", sql: "-- functions.sql: member.login takes the login's server nonce"),
        Migration(version: 10, name: "a login's attempts are one login", sql: """
            -- The latest login through the identity: a SHA-256 of its key (LoginRequest.attemptKey, made by the
            -- gateway for each HTTP login and sent again in its resend) and its device, and whether it created the
            -- identity. member.login answers a second attempt of that login as it answered the first, and writes
            -- no event again.
            ALTER TABLE member.identities
                ADD COLUMN login_attempt          BYTEA,
                ADD COLUMN login_attempt_created  BOOLEAN;
            """),
    ]
}
