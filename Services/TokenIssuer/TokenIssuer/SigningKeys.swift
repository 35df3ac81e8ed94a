import Crypto
import Foundation
import JOSE
import Logging
import Postgres

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

    /// The key that signs new tokens: the newest active one.
    func active() throws -> Key {
        let now = Date()
        guard let key = keys.filter({ $0.retiredAt == nil && $0.activatesAt <= now }).max(by: { $0.activatesAt < $1.activatesAt }) else {
            throw IssuerError.noSigningKey
        }
        return key
    }

    /// The public keys to publish: all keys not retired, plus retired ones whose tokens may still be live.
    func published() -> JWKSet {
        let cutoff = Date().addingTimeInterval(-accessTokenTTL.timeInterval)
        return JWKSet(keys: keys.filter { ($0.retiredAt ?? .distantFuture) > cutoff }.map(\.publicJWK))
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

    private static func key(pem: String, activatesAt: Date, retiredAt: Date?) throws -> Key {
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

extension Duration {
    /// The duration in seconds, as Foundation counts time.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
