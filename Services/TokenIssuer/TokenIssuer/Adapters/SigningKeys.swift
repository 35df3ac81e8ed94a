import Contracts
import Crypto
import Foundation
import JOSE
import Logging
import Postgres
import Runtime

/// The issuer's signing keys: the one that signs now, and every key whose tokens may still be live
/// (published in the JWKS).
///
/// `issuer.signing_keys` holds the schedule every replica follows: when each key starts signing and when
/// it retired. The private keys come from that table (generated there when `SIGNING_KEY_FILE` is unset)
/// or from the key files; a key first seen in a file is recorded there (public half only) and signs from
/// `publishLead` later. Every replica reloads regularly, so all publish and sign alike.
actor SigningKeys: SigningKeyProvider {
    private let database: PostgresClient
    private let keyFiles: [String]?
    private let accessTokenTTL: Duration
    private let publishLead: Duration
    private let logger: Logger
    private var keys: [SigningKey] = []
    private var fallbackWarned: String?
    private var noKeyWarned = false
    /// The rows already warned of as no key of this replica's (with key files).
    private var ignoredWarned: Set<String> = []
    /// The last ``verificationKeys()``, for the `kid`s it was made of.
    private var verification: (kids: [String], set: VerificationKeySet)?
    /// Counts loads begun, so that a load that began earlier but finished later does not put back older keys.
    private var loadsBegun = 0

    init(database: PostgresClient, keyFiles: [String]?, accessTokenTTL: Duration, publishLead: Duration, logger: Logger) {
        self.database = database
        self.keyFiles = keyFiles
        self.accessTokenTTL = accessTokenTTL
        self.publishLead = publishLead
        self.logger = logger
    }

    /// The signer of new tokens, the key of `signing(in:at:accessTokenTTL:)`, and the latest expiry its
    /// tokens may have: a retired key (a fallback) is published only until `accessTokenTTL` after it retired.
    func signer() throws -> (signer: JWTSigner, expiresBy: Date?) {
        let now = Date()
        guard let key = SigningKeySchedule.signing(in: keys, at: now, accessTokenTTL: accessTokenTTL), let signer = key.signer else {
            if !keys.isEmpty, keyFiles == nil, !noKeyWarned {
                noKeyWarned = true
                logger.error("no key this replica holds can sign: the signing keys come from key files, and SIGNING_KEY_FILE is unset here; set it (docs/key-rotation.md)")
            }
            throw IssuerError.noSigningKey
        }
        if SigningKeySchedule.active(in: keys, at: now)?.kid != key.kid, fallbackWarned != key.kid {
            fallbackWarned = key.kid
            logger.warning("this replica lacks the private key of the key that should sign now; signing with the newest key it holds",
                           ["key.kid": key.kid])
        }
        return (signer, key.retiredAt.map { $0.addingTimeInterval(accessTokenTTL.timeInterval) })
    }

    /// The public keys to publish: the next key (before it signs), the active one, and retired ones
    /// whose tokens may still be live.
    func published() -> JWKSet {
        JWKSet(keys: SigningKeySchedule.published(keys, at: Date(), accessTokenTTL: accessTokenTTL).map(\.publicJWK))
    }

    /// The published keys, ready to check the signature of an access token a member-scoped request carries.
    func verificationKeys() -> VerificationKeySet {
        let jwks = published()
        let kids = jwks.keys.compactMap(\.kid)
        if let cached = verification, cached.kids == kids { return cached.set }
        let set = VerificationKeySet(jwks)
        verification = (kids, set)
        return set
    }

    /// Whether the keys come from `SIGNING_KEY_FILE` (then they rotate when a key file is added).
    var fromFile: Bool { keyFiles != nil }

    /// Starts a rotation now, whatever the signing key's age.
    func rotate() async throws -> SigningKeyRotation? {
        try await rotate(olderThan: nil)
    }

    /// Starts a rotation of database keys: a new key, published at once, that signs from `now + publishLead`,
    /// when the key it replaces retires. With `olderThan`, only when the newest key began signing that long
    /// ago (the automatic rotation by age); without, at once (forced). While a rotation is pending, it is
    /// the answer and no other starts. Returns nil when nothing was due. An advisory lock lets one replica
    /// at a time decide.
    func rotate(olderThan age: Duration? = nil) async throws -> SigningKeyRotation? {
        guard keyFiles == nil else { return nil }
        let publishLead = publishLead
        let rotation = try await database.withTransaction { connection -> SigningKeyRotation? in
            try await Self.lock(connection)
            let pending = try await connection.query(
                "SELECT kid, activates_at FROM issuer.signing_keys WHERE activates_at > now() AND retired_at IS NULL ORDER BY activates_at DESC LIMIT 1")
            if let row = pending.first {
                return SigningKeyRotation(kid: try row.string("kid"), activatesAt: try row.date("activates_at"))
            }
            if let age {
                let due = try await connection.query(
                    """
                    SELECT coalesce(max(activates_at), '-infinity') <= now() - make_interval(secs => \(age.components.seconds)) AS due
                      FROM issuer.signing_keys WHERE retired_at IS NULL
                    """)
                guard try due.first?.bool("due") == true else { return nil }
            }
            let (key, activatesAt) = try await Self.generate(publishLead: publishLead, connection)
            return SigningKeyRotation(kid: key.kid, activatesAt: activatesAt)
        }
        if let rotation {
            logger.notice("signing key rotation scheduled", ["key.kid": rotation.kid, "key.activates_at": String(describing: rotation.activatesAt)])
            _ = try await load()
        }
        return rotation
    }

    /// Deletes database keys retired so long ago that no token of theirs can be live (kept a day longer,
    /// for the record). Rows of file keys stay: they remember that a key file still lying around retired.
    func deleteExpired() async throws {
        _ = try await database.query(
            """
            DELETE FROM issuer.signing_keys
             WHERE private_key_pem IS NOT NULL AND retired_at < now() - make_interval(secs => \(accessTokenTTL.components.seconds + 86_400))
            """)
    }

    /// Loads the keys. Without key files, creates the first key when none can sign; with them, records
    /// each key seen for the first time. Returns whether it recorded a key, so the other replicas can be
    /// told to reload. Several replicas may start at once: an advisory lock lets one of them record a key.
    @discardableResult
    func load() async throws -> Bool {
        loadsBegun += 1
        let load = loadsBegun
        let fileKeys = try keyFiles.map { try Self.readKeyFiles($0) } ?? []
        let held = Dictionary(fileKeys.map { ($0.kid, $0) }, uniquingKeysWith: { first, _ in first })
        let select: PostgresQuery = "SELECT kid, private_key_pem, public_key_pem, activates_at, retired_at, vouch FROM issuer.signing_keys"
        var rows = try await database.query(select)
        var recorded: [SigningKey] = []
        let generate = keyFiles == nil
        let accessTokenTTL = accessTokenTTL
        if Self.needsRecording(rows, fileKeys, generate: generate, accessTokenTTL: accessTokenTTL) {
            let publishLead = publishLead
            (rows, recorded) = try await database.withTransaction { connection in
                try await Self.lock(connection)
                let current = try await connection.query(select)
                guard Self.needsRecording(current, fileKeys, generate: generate, accessTokenTTL: accessTokenTTL) else { return (current, []) }
                var new: [SigningKey] = []
                if generate {
                    new.append(try await Self.generate(publishLead: publishLead, connection).key)
                } else {
                    // A new file key vouches only for keys this replica trusts: a key of its files, or one a file
                    // vouched for. Never for a row another writer added, nor for a database key: nothing in the
                    // table tells one the issuer made from one a writer added, so the move from database keys
                    // is a cut-over (docs/key-rotation.md).
                    var trusted = Set(current.compactMap { row in Self.fileModeKey(row: row, held: held, fileKeys: fileKeys)?.kid })
                    // In the files' order, so that of several new keys the last one named signs.
                    for key in Self.unrecorded(fileKeys, in: current) {
                        _ = try await Self.record(key, privatePEM: nil, publishLead: publishLead, vouchingFor: trusted, connection)
                        trusted.insert(key.kid)
                        new.append(key)
                    }
                }
                return (try await connection.query(select), new)
            }
        }
        var loaded: [SigningKey] = []
        for row in rows {
            guard keyFiles != nil else {
                loaded.append(try Self.key(row: row, held: held))
                continue
            }
            // With key files, a row is a key only when the files hold its private half, or when one of them
            // vouched for it as the key it retired: nothing another writer of the table adds is published.
            if let key = Self.fileModeKey(row: row, held: held, fileKeys: fileKeys) {
                loaded.append(key)
            } else {
                warnIgnored(row)
            }
        }
        for key in recorded {
            let schedule = loaded.first { $0.kid == key.kid }.map { String(describing: $0.activatesAt) } ?? "?"
            logger.notice("signing key recorded", ["key.kid": key.kid, "key.activates_at": schedule])
        }
        guard load == loadsBegun else { return !recorded.isEmpty }
        if loaded.map(\.kid) != keys.map(\.kid) {
            logger.info("signing keys loaded", ["keys.count": String(loaded.count)])
        }
        keys = loaded
        return !recorded.isEmpty
    }

    /// Whether a key must be recorded: a key file not in the table yet, or, when keys are generated, no
    /// database key that has not retired (none yet, or deleted) and no key file's key still published.
    /// While a key file's key is published nothing is generated: a replica not yet rolled over to key
    /// files signs with the retiring database key, and a stray one never schedules a key of its own
    /// over the files'.
    private static func needsRecording(_ rows: PostgresRows, _ fileKeys: [SigningKey], generate: Bool, accessTokenTTL: Duration) -> Bool {
        if generate {
            let now = Date()
            let cutoff = now.addingTimeInterval(-accessTokenTTL.timeInterval)
            return !rows.contains { row in
                let retiredAt = try? row.optionalDate("retired_at")
                return retiredAt.map { $0 > (row.isNull("private_key_pem") ? cutoff : now) } ?? true
            }
        }
        return !unrecorded(fileKeys, in: rows).isEmpty
    }

    /// The keys of `fileKeys` that `rows` of the key table do not hold yet, in order.
    private static func unrecorded(_ fileKeys: [SigningKey], in rows: PostgresRows) -> [SigningKey] {
        let known = Set(rows.compactMap { try? $0.string("kid") })
        return fileKeys.filter { !known.contains($0.kid) }
    }

    /// Generates a P-256 key, kept in the table with its private half, and records it; returns it and
    /// when it starts signing.
    private static func generate(publishLead: Duration, _ connection: PostgresConnection) async throws -> (key: SigningKey, activatesAt: Date) {
        let privateKey = try PrivateKey.generateP256()
        let key = try SigningKey(privateKey: privateKey, activatesAt: .distantPast, retiredAt: nil)
        return (key, try await record(key, privatePEM: privateKey.pemRepresentation, publishLead: publishLead, connection))
    }

    /// Inserts `key`: it signs at once when no key signs yet, else from `publishLead` later (a whole second,
    /// rounded up, since messages carry seconds only); every other key retires when it starts, and a key file
    /// vouches for those of `trusted` among them. Returns when it starts signing.
    private static func record(_ key: SigningKey, privatePEM: String?, publishLead: Duration, vouchingFor trusted: Set<String> = [],
                               _ connection: PostgresConnection) async throws -> Date {
        let inserted = try await connection.query(
            """
            INSERT INTO issuer.signing_keys (kid, algorithm, private_key_pem, public_key_pem, activates_at)
                 VALUES (\(key.kid), \(key.publicJWK.alg ?? ""), \(privatePEM), \(key.publicKey.pemRepresentation),
                         CASE WHEN EXISTS (SELECT 1 FROM issuer.signing_keys
                                            WHERE activates_at <= now() AND (retired_at IS NULL OR retired_at > now()))
                              THEN date_trunc('second', now() + make_interval(secs => \(publishLead.components.seconds))) + interval '1 second'
                              ELSE now() END)
            RETURNING activates_at
            """)
        guard let activatesAt = try inserted.first?.date("activates_at") else { throw IssuerError.noSigningKey }
        let retired = try await connection.query(
            """
            UPDATE issuer.signing_keys SET retired_at = \(activatesAt), vouch = NULL
             WHERE kid <> \(key.kid) AND (retired_at IS NULL OR retired_at > \(activatesAt))
            RETURNING kid
            """)
        // A key file vouches for each key it retires, so that replicas reading the files publish that key
        // until its last token expired (and no key some other writer put in the table).
        if privatePEM == nil, let signer = key.signer {
            for row in retired {
                let kid = try row.string("kid")
                guard trusted.contains(kid) else { continue }
                let vouch = try SigningKeyVouch.make(for: kid, retiredAt: activatesAt, by: signer)
                _ = try await connection.query("UPDATE issuer.signing_keys SET vouch = \(vouch) WHERE kid = \(kid)")
            }
        }
        return activatesAt
    }

    /// Takes the transaction's lock on the key table; a replica that holds it too long (hung, not crashed)
    /// makes this fail after 5 s rather than hold up every start and reload.
    private static func lock(_ connection: PostgresConnection) async throws {
        _ = try await connection.query("SET LOCAL lock_timeout = '5s'")
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext('issuer.signing_keys'))")
    }

    /// With key files: the key of `row` when its private half is in the files, or when it retired and a key
    /// of the files vouched for that retirement (``SigningKeyVouch``); nil for any other row.
    private static func fileModeKey(row: PostgresRow, held: [String: SigningKey], fileKeys: [SigningKey]) -> SigningKey? {
        guard let kid = try? row.string("kid"), let key = try? Self.key(row: row, held: held) else { return nil }
        if held[kid] != nil, key.kid == kid { return key }
        // A row's kid is its public key's thumbprint; one whose key was swapped under a vouched kid is no key.
        guard key.kid == kid, (try? key.publicJWK.thumbprint()) == kid, let retiredAt = key.retiredAt,
              let vouch = try? row.optionalString("vouch"),
              SigningKeyVouch.verify(vouch, kid: kid, retiredAt: retiredAt, held: fileKeys) else { return nil }
        return key
    }

    /// Logs once for each row that is no key of this replica's (``fileModeKey(row:held:fileKeys:)``).
    private func warnIgnored(_ row: PostgresRow) {
        let kid = (try? row.string("kid")) ?? "?"
        guard !ignoredWarned.contains(kid) else { return }
        ignoredWarned.insert(kid)
        logger.warning("a signing key in issuer.signing_keys is neither in this replica's key files nor vouched for by one of them; it is not published and signs nothing (a key file not yet here, or a row some other writer added)",
                       ["key.kid": String(kid.prefix(64))])
    }

    /// A key from a table row: its private key from the row (database keys) or from `held` (key files).
    private static func key(row: PostgresRow, held: [String: SigningKey]) throws -> SigningKey {
        let kid = try row.string("kid")
        let activatesAt = try row.date("activates_at")
        let retiredAt = try row.optionalDate("retired_at")
        if let pem = try row.optionalString("private_key_pem") {
            return try SigningKey(pem: pem, activatesAt: activatesAt, retiredAt: retiredAt)
        }
        if let file = held[kid] {
            return SigningKey(kid: kid, publicKey: file.publicKey, publicJWK: file.publicJWK, signer: file.signer,
                       activatesAt: activatesAt, retiredAt: retiredAt)
        }
        let publicKey = try PublicKey.pem(try row.string("public_key_pem"))
        return SigningKey(kid: kid, publicKey: publicKey, publicJWK: JWK(publicKey: publicKey, kid: kid, alg: try SigningKey.algorithm(for: publicKey.kind)),
                   signer: nil, activatesAt: activatesAt, retiredAt: retiredAt)
    }
}
