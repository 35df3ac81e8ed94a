import Postgres

extension IssuerMigrations {
    /// The session events outbox takes the shape the shared `Outbox` claims rows by, as
    /// `member.outbox` has: a lease (`available_at`) and a count of claims (`attempts`).
    static let outboxLease = Migration(version: 5, name: "session events outbox claimed with a lease", sql: """
        -- Rows were locked for the length of a publish; now a replica claims them for a while
        -- instead, so no transaction stays open across JetStream calls.
        ALTER TABLE issuer.outbox
            ADD COLUMN attempts INT NOT NULL DEFAULT 0,
            ADD COLUMN available_at TIMESTAMPTZ NOT NULL DEFAULT now();
        CREATE INDEX outbox_available ON issuer.outbox (available_at, seq);
        """)
}
