import Contracts
import Crypto
import Foundation
import JOSE
import Logging
import Postgres
import Runtime

/// The issuer's signing keys: the one that signs now, and every key whose tokens may still
/// be live (published in the JWKS). Every replica reads the same keys from the database (or
/// the same `SIGNING_KEY_FILE`) and reloads them regularly, so all replicas sign alike.
actor SigningKeys {
    /// A key as the issuer uses it.
    struct Key: Sendable {
        let kid: String
        let signer: JWTSigner
        let publicJWK: JWK
        let activatesAt: Date
        let retiredAt: Date?
    }

    private let database: PostgresClient
    private let keyFile: String?
    private let accessTokenTTL: Duration
    private let logger: Logger
    private var keys: [Key] = []

    init(database: PostgresClient, keyFile: String?, accessTokenTTL: Duration, logger: Logger) {
        self.database = database
        self.keyFile = keyFile
        self.accessTokenTTL = accessTokenTTL
        self.logger = logger
    }

    /// The key that signs new tokens: the newest one whose time has come and that has not retired.
    /// Every replica computes it from the same rows, so all sign with the same key.
    func active() throws -> Key {
        guard let key = Self.active(in: keys, at: Date()) else { throw IssuerError.noSigningKey }
        return key
    }

    /// The public keys to publish: the next key (before it signs), the active one, and retired ones
    /// whose tokens may still be live.
    func published() -> JWKSet {
        JWKSet(keys: Self.published(keys, at: Date(), accessTokenTTL: accessTokenTTL).map(\.publicJWK))
    }

    /// The active key of `keys` at `now`.
    static func active(in keys: [Key], at now: Date) -> Key? {
        keys.filter { $0.activatesAt <= now && ($0.retiredAt ?? .distantFuture) > now }.max { $0.activatesAt < $1.activatesAt }
    }

    /// The keys of `keys` to publish at `now`: a retired key stays until its last token expired.
    static func published(_ keys: [Key], at now: Date, accessTokenTTL: Duration) -> [Key] {
        let cutoff = now.addingTimeInterval(-accessTokenTTL.timeInterval)
        return keys.filter { ($0.retiredAt ?? .distantFuture) > cutoff }
    }

    /// Whether the keys come from `SIGNING_KEY_FILE` (then they rotate by replacing the file).
    var fromFile: Bool { keyFile != nil }

    /// Starts a rotation: a new key, published at once, that signs from `now + publishLead`, when the
    /// key it replaces retires. With `olderThan`, only when the newest key began signing that long ago
    /// (the automatic rotation by age); without, at once (forced). While a rotation is pending, it is
    /// the answer and no other starts. Returns nil when nothing was due. An advisory lock lets one
    /// replica at a time decide.
    func rotate(olderThan age: Duration? = nil, publishLead: Duration) async throws -> SigningKeyRotation? {
        guard keyFile == nil else { return nil }
        let rotation = try await database.withTransaction { connection -> SigningKeyRotation? in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext('issuer.signing_keys'))", [])
            let pending = try await connection.query(
                "SELECT kid, activates_at FROM issuer.signing_keys WHERE activates_at > now() AND retired_at IS NULL ORDER BY activates_at DESC LIMIT 1", [])
            if let row = pending.first {
                return SigningKeyRotation(kid: try row.string("kid"), activatesAt: try row.date("activates_at"))
            }
            if let age {
                let due = try await connection.query(
                    """
                    SELECT coalesce(max(activates_at), '-infinity') <= now() - make_interval(secs => $1) AS due
                      FROM issuer.signing_keys WHERE retired_at IS NULL
                    """,
                    [.int(Int64(age.components.seconds))])
                guard try due.first?.bool("due") == true else { return nil }
            }
            let key = try PrivateKey.generateP256()
            let kid = try JWK(publicKey: key.publicKey, kid: "", alg: .ES256).thumbprint()
            // A whole second (rounded up, so the lead is never shorter): messages carry seconds only.
            let inserted = try await connection.query(
                """
                INSERT INTO issuer.signing_keys (kid, algorithm, private_key_pem, activates_at)
                     VALUES ($1, 'ES256', $2, date_trunc('second', now() + make_interval(secs => $3)) + interval '1 second')
                RETURNING activates_at
                """,
                [.text(kid), .text(key.pemRepresentation), .int(Int64(publishLead.components.seconds))])
            guard let activatesAt = try inserted.first?.date("activates_at") else { throw IssuerError.noSigningKey }
            _ = try await connection.query(
                "UPDATE issuer.signing_keys SET retired_at = $2 WHERE kid <> $1 AND (retired_at IS NULL OR retired_at > $2)",
                [.text(kid), .timestamp(activatesAt)])
            return SigningKeyRotation(kid: kid, activatesAt: activatesAt)
        }
        if let rotation {
            logger.notice("signing key rotation scheduled", ["key.kid": rotation.kid, "key.activates_at": String(describing: rotation.activatesAt)])
            try await load()
        }
        return rotation
    }

    /// Deletes keys retired so long ago that no token of theirs can be live (kept a day longer, for the record).
    func deleteExpired() async throws {
        guard keyFile == nil else { return }
        _ = try await database.query(
            "DELETE FROM issuer.signing_keys WHERE retired_at < now() - make_interval(secs => $1)",
            [.int(Int64(accessTokenTTL.components.seconds) + 86_400)])
    }

    /// Loads the keys; in database mode, creates the first key when there is none. Several
    /// replicas may start at once: an advisory lock lets exactly one of them create it.
    func load() async throws {
        if let keyFile {
            let pem = try String(contentsOfFile: keyFile, encoding: .utf8)
            keys = [try Self.key(pem: pem, activatesAt: .distantPast, retiredAt: nil)]
            return
        }
        let rows = try await database.withTransaction { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext('issuer.signing_keys'))", [])
            let existing = try await connection.query(
                "SELECT kid, private_key_pem, activates_at, retired_at FROM issuer.signing_keys", [])
            // Rotation always leaves the newest key unretired, so this holds once a first key exists.
            if existing.contains(where: { $0.isNull("retired_at") }) { return existing }
            let key = try PrivateKey.generateP256()
            let kid = try JWK(publicKey: key.publicKey, kid: "", alg: .ES256).thumbprint()
            _ = try await connection.query(
                "INSERT INTO issuer.signing_keys (kid, algorithm, private_key_pem) VALUES ($1, 'ES256', $2)",
                [.text(kid), .text(key.pemRepresentation)])
            return try await connection.query(
                "SELECT kid, private_key_pem, activates_at, retired_at FROM issuer.signing_keys", [])
        }
        var loaded: [Key] = []
        for row in rows {
            let retiredAt = row.isNull("retired_at") ? nil : try row.date("retired_at")
            loaded.append(try Self.key(pem: try row.string("private_key_pem"), activatesAt: try row.date("activates_at"), retiredAt: retiredAt))
        }
        if loaded.map(\.kid) != keys.map(\.kid) {
            logger.info("signing keys loaded", ["keys.count": String(loaded.count)])
        }
        keys = loaded
    }

    static func key(pem: String, activatesAt: Date, retiredAt: Date?) throws -> Key {
        let privateKey = try PrivateKey(pem: pem)
        let algorithm: JWSAlgorithm
        switch privateKey.kind {
        case .p256: algorithm = .ES256
        case .ed25519: algorithm = .EdDSA
        default: throw IssuerError.unsupportedSigningKey
        }
        let kid = try JWK(publicKey: privateKey.publicKey, kid: "", alg: algorithm).thumbprint()
        return Key(kid: kid, signer: JWTSigner(key: privateKey, kid: kid, algorithm: algorithm),
                   publicJWK: JWK(publicKey: privateKey.publicKey, kid: kid, alg: algorithm),
                   activatesAt: activatesAt, retiredAt: retiredAt)
    }
}

