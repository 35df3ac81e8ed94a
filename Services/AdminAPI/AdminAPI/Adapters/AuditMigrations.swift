import Postgres

/// The `audit` schema, in versioned steps applied at start; never edit a step that shipped.
enum AuditMigrations {
    static let schema = "audit"

    static let all: [Migration] = [
        Migration(version: 1, name: "records and erased members", sql: """
            -- One row per event of the stream (event_id: the event's ID, so a redelivery is stored once) and
            -- per admin request (event_id 'admin:<uuid>'). details holds no token, grant or provider subject.
            CREATE TABLE audit.records (
                id           BIGSERIAL PRIMARY KEY,
                event_id     TEXT NOT NULL UNIQUE,
                member_id    BIGINT,
                kind         TEXT NOT NULL,
                occurred_at  TIMESTAMPTZ NOT NULL,
                admin        TEXT,
                reason       TEXT,
                details      JSONB NOT NULL DEFAULT '{}'
            );
            CREATE INDEX records_member ON audit.records (member_id, id DESC) WHERE member_id IS NOT NULL;
            -- BRIN: records come roughly in time order; the retention sweep needs ranges, not rows, and a
            -- block-range index costs an insert almost nothing (a B-tree here cost every event's insert).
            CREATE INDEX records_occurred ON audit.records USING brin (occurred_at);

            -- Members deleted: their records keep IDs, kinds and times, no personal details, including
            -- records of events that arrive after the deletion (a late login event).
            CREATE TABLE audit.erased_members (
                member_id  BIGINT PRIMARY KEY,
                erased_at  TIMESTAMPTZ NOT NULL DEFAULT now()
            );
            """),
    ]
}
