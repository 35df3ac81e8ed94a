import Postgres

extension IssuerMigrations {
    /// The ended sessions in the order a gateway pages through them (`auth.issuer.ended-sessions`).
    static let endedSessionsOrder = Migration(version: 7, name: "ended sessions in the order they are paged", sql: """
        -- Each page of auth.issuer.ended-sessions is a range of this index, after the last page's end.
        CREATE INDEX sessions_ended_order ON issuer.sessions (ended_at, id) WHERE ended_at IS NOT NULL;
        """)
}
