import Postgres

extension IssuerMigrations {
    /// With key files, a key some file retired is published only with that file's vouch (``SigningKeyVouch``).
    static let keyVouches = Migration(version: 6, name: "signing keys vouched for by the key file that retired them", sql: """
        -- A JWS by the key file that retired this key, naming its kid and retirement: replicas reading key
        -- files publish a key not in their files only with it, so a row another writer adds is never published.
        ALTER TABLE issuer.signing_keys ADD COLUMN vouch TEXT;
        """)
}
