import Contracts
import Crypto
import Foundation
import JOSE
import JSON
import Logging
import Messaging
import NATS
import Postgres
import Testing
import TestSupport

/// Signing keys from files rotate without a cut-over: a key file added next to the current one is
/// published at once, signs after the publish lead, and the key it replaced stays published until its
/// last token expired, so tokens it signed keep working until then.
@Suite("Signing keys from files")
struct IssuerKeyFileRotationTests {
    private static let publishLead: Duration = .seconds(5)
    private static let accessTokenTTL: Duration = .seconds(15)

    /// A NATS server with JetStream and a database of its own (these keys must not meet the shared
    /// stack's), a directory for key files, and a client to the issuers and the database.
    private struct Bench: Sendable {
        let server: TestNATSServer
        let directory: URL
        let client: ServiceClient
        let connection: NATSConnection
        let logger = Logger(label: "key-file-test", level: .critical)

        static func start() async throws -> Bench {
            let server = try await TestNATSServer.start(jetStream: true)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signing-keys-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let connection = try await NATSConnection.connect(TestIdentities.configuration(url: server.url, name: "key-file-test"),
                                                              logger: Logger(label: "key-file-test", level: .critical))
            return Bench(server: server, directory: directory, client: ServiceClient(connection: connection, logger: Logger(label: "key-file-test", level: .critical)),
                         connection: connection)
        }

        /// Stops the server (synchronously, so that it never outlives the test process) and removes the keys.
        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Starts an issuer; `files` true: from the key directory, false: keys kept in the database.
        func issuer(files: Bool, databaseURL: String? = nil) async throws -> (ServiceHandle, String) {
            try await TestStack.startIssuer(natsURL: server.url, databaseURL: databaseURL) {
                if files { $0.signingKeyFiles = [directory.path] }
                $0.signingKeyPublishLead = IssuerKeyFileRotationTests.publishLead
                $0.accessTokenTTL = IssuerKeyFileRotationTests.accessTokenTTL
                $0.signingKeyReloadInterval = .milliseconds(200)
            }
        }

        /// An access token for a new session; its `kid`.
        func issue() async throws -> (token: String, kid: String?) {
            let pair = try await client.call(Endpoints.issueTokens,
                                             IssueTokensRequest(memberId: 7, deviceId: "device-\(UUID().uuidString.prefix(6))", provider: .google),
                                             timeout: .seconds(10))
            return (pair.accessToken, try CompactJWS.parse(pair.accessToken).header.kid)
        }

        /// The `kid`s the issuers publish.
        func published() async throws -> Set<String> {
            let reply = try await client.call(Endpoints.accessTokenKeys, AccessTokenKeysRequest(), timeout: .seconds(10))
            return Set(try reply.jwks.decode(JWKSet.self).keys.compactMap(\.kid))
        }

        /// Runs `body` with an issuer reading the key directory, a gateway on the bench's NATS, and a client of
        /// the issuer's database (as its administrator); stops them after.
        func withFileIssuer(_ body: (StandaloneGateway, PostgresClient) async throws -> Void) async throws {
            let (issuer, databaseURL) = try await issuer(files: true)
            try await withResource(issuer, close: { await $0.stop() }) { _ in
                let gateway = try await StandaloneGateway.start(natsURL: server.url) {
                    $0.rateLimitRPS = 0
                    $0.clockSkew = .zero
                }
                try await withResource(gateway, close: { await $0.stop() }) { gateway in
                    try await gateway.waitUntilConnected()
                    let database = PostgresClient(configuration: try PostgresConfiguration(url: databaseURL), logger: logger)
                    try await withResource(database, close: { await $0.close() }) { database in try await body(gateway, database) }
                }
            }
        }

        /// Writes a new P-256 key in PEM as `name`; returns its `kid` (the JWK thumbprint the issuer uses).
        func writeKey(_ name: String) throws -> String {
            let key = try PrivateKey.generateP256()
            try Data(key.pemRepresentation.utf8).write(to: directory.appendingPathComponent(name))
            return try JWK(publicKey: key.publicKey, kid: "", alg: .ES256).thumbprint()
        }
    }

    @Test("a key file added is published at once and signs after the lead; the old key's tokens work until they expire")
    func rotationWithoutCutOver() async throws {
        let bench = try await Bench.start()
        defer { bench.stop() }
        let kidA = try bench.writeKey("2026-11.pem")
        try await bench.withFileIssuer { gateway, database in
            func status(_ token: String) async throws -> Int {
                try await RunningStack.send("GET", gateway.url + "/api/auth/sessions", headers: [("Authorization", "Bearer \(token)")]).status
            }

            // The first key signs at once.
            let (tokenA, firstKid) = try await bench.issue()
            #expect(firstKid == kidA)
            #expect(try await status(tokenA) == 200)

            // A second key file: published within a reload; it signs only from its recorded time on.
            let kidB = try bench.writeKey("2026-12.pem")
            #expect(try await eventually { try await bench.published().contains(kidB) }, "the new key was never published")
            let activatesAt = try #require(try await database.query(
                "SELECT activates_at FROM issuer.signing_keys WHERE kid = \(kidB)").first?.date("activates_at"))
            #expect(activatesAt.timeIntervalSinceNow > 0, "the new key signs only after the publish lead")
            #expect(try await bench.published() == [kidA, kidB])
            let early = try await bench.issue()
            try #require(Date() < activatesAt, "the token came after the new key's time; the publish lead is too short here")
            #expect(early.kid == kidA, "a token signed before the new key's time carries the new key")

            // A file that holds no key, seen at reloads: the keys loaded before stay, and signing goes on.
            try Data("not a key".utf8).write(to: bench.directory.appendingPathComponent("2026-13.pem"))
            // A fixed window is the check: some reloads (every 200 ms) see the file, and nothing changes.
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await bench.published() == [kidA, kidB])
            #expect(try await [kidA, kidB].contains(bench.issue().kid))
            try FileManager.default.removeItem(at: bench.directory.appendingPathComponent("2026-13.pem"))

            // After the lead the new key signs; a token of the old key still works, and both are published.
            // The new key's time passes; the check is that it signs then, not eventually.
            try await Task.sleep(for: .seconds(max(activatesAt.timeIntervalSinceNow, 0) + 0.3))
            let (tokenB, kid) = try await bench.issue()
            #expect(kid == kidB)
            #expect(try await status(tokenA) == 200, "a token of the old key is refused before it expired")
            #expect(try await status(tokenB) == 200)
            #expect(try await bench.published() == [kidA, kidB])

            // Once the old key's last token can have expired, it is no longer published, though its file is
            // still there, and it signs nothing; its token, expired, is refused.
            #expect(try await eventually(timeout: .seconds(30)) { try await !bench.published().contains(kidA) }, "the old key stayed published")
            #expect(Date() >= activatesAt.addingTimeInterval(Self.accessTokenTTL.timeInterval - 1), "the old key left before its tokens expired")
            #expect(FileManager.default.fileExists(atPath: bench.directory.appendingPathComponent("2026-11.pem").path))
            #expect(try await bench.issue().kid == kidB)
            #expect(try await status(tokenA) == 401)
        }
    }

    @Test("while issuers roll from database keys to key files, the ones not yet rolled do not schedule a key of their own")
    func rollFromDatabaseKeys() async throws {
        let bench = try await Bench.start()
        defer { bench.stop() }
        let (databaseMode, databaseURL) = try await bench.issuer(files: false)
        try await withResource(databaseMode, close: { await $0.stop() }) { databaseMode in
            let databaseKid = try #require(try await bench.issue().kid)

            // One replica rolled over to key files, next to one still on database keys.
            let fileKid = try bench.writeKey("signing-key.pem")
            let (fileMode, _) = try await bench.issuer(files: true, databaseURL: databaseURL)
            try await withResource(fileMode, close: { await $0.stop() }) { fileMode in
                let database = PostgresClient(configuration: try PostgresConfiguration(url: databaseURL), logger: bench.logger)
                try await withResource(database, close: { await $0.close() }) { database in
                    let activatesAt = try #require(try await database.query(
                        "SELECT activates_at FROM issuer.signing_keys WHERE kid = \(fileKid)").first?.date("activates_at"))

                    // Past the file key's time, both replicas answer, the one on database keys with the retired database
                    // key and tokens that expire before that key leaves the JWKS; neither made another key, and the file
                    // key is not retired.
                    // The file key's time passes (a wall-clock rule; a longer wait is still past it).
                    try await Task.sleep(for: .seconds(max(activatesAt.timeIntervalSinceNow, 0) + 1))
                    var kids: Set<String> = []
                    for _ in 0..<10 {
                        let (token, kid) = try await bench.issue()
                        kids.insert(try #require(kid))
                        let exp = try #require(try JWTClaims.decode(CompactJWS.parse(token).payload).exp)
                        #expect(kid == fileKid || Double(exp) <= activatesAt.addingTimeInterval(Self.accessTokenTTL.timeInterval).timeIntervalSince1970 + 1,
                                "a token of the retired key outlives its publication")
                    }
                    #expect(kids.isSubset(of: [databaseKid, fileKid]), "\(kids)")
                    let rows = try await database.query("SELECT kid, retired_at IS NULL AS current FROM issuer.signing_keys ORDER BY created_at")
                    #expect(try rows.map { try $0.string("kid") } == [databaseKid, fileKid])
                    #expect(try rows.map { try $0.bool("current") } == [false, true])

                    // Once every replica reads the files, the file key signs, and the database key is not published:
                    // no file key vouches for a database key (a writer of the table could have added it), so the move
                    // is a cut-over.
                    await databaseMode.stop()
                    for _ in 0..<5 { #expect(try await bench.issue().kid == fileKid) }
                    #expect(try await bench.published() == [fileKid])
                    #expect(try await database.query("SELECT kid FROM issuer.signing_keys WHERE vouch IS NOT NULL").isEmpty)

                    // A stray issuer without the key files, started later on the same database, makes no key of its own.
                    let (stray, _) = try await bench.issuer(files: false, databaseURL: databaseURL)
                    try await withResource(stray, close: { await $0.stop() }) { stray in
                        let after = try await database.query("SELECT kid FROM issuer.signing_keys ORDER BY created_at")
                        #expect(try after.map { try $0.string("kid") } == [databaseKid, fileKid])
                    }
                }
            }
        }
    }

    @Test("with key files, a key another writer inserts into issuer.signing_keys is never published, and its tokens get 401")
    func injectedKeyIsNotPublished() async throws {
        let bench = try await Bench.start()
        defer { bench.stop() }
        let kidA = try bench.writeKey("2026-11.pem")
        try await bench.withFileIssuer { gateway, database in
            // The control: the file key's token works.
            let (token, kid) = try await bench.issue()
            #expect(kid == kidA)
            #expect(try await RunningStack.send("GET", gateway.url + "/api/auth/sessions",
                                                headers: [("Authorization", "Bearer \(token)")]).status == 200)

            // The database administrator adds two keys of their own: one current, one as if retired just now.
            var forged: [(kid: String, signer: JWTSigner)] = []
            for retired in [false, true] {
                let key = try PrivateKey.generateP256()
                let kid = try JWK(publicKey: key.publicKey, kid: "", alg: .ES256).thumbprint()
                let retiredAt: Date? = retired ? Date() : nil
                _ = try await database.query(
                    """
                    INSERT INTO issuer.signing_keys (kid, algorithm, public_key_pem, activates_at, retired_at)
                         VALUES (\(kid), 'ES256', \(key.publicKey.pemRepresentation), now() - interval '1 minute', \(retiredAt))
                    """)
                forged.append((kid, JWTSigner(key: key, kid: kid, algorithm: .ES256)))
            }
            // Across several reloads (every 200 ms here), and a notice that makes every issuer reload, neither is published.
            try bench.connection.publish(SigningKeyNotices.changed, [])
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(400))  // a fixed window is the check: reloads happen, nothing is published
                #expect(try await bench.published() == [kidA])
                let jwks = try await RunningStack.send("GET", gateway.url + "/.well-known/jwks.json")
                #expect(jwks.status == 200)
                for (kid, _) in forged { #expect(!jwks.text.contains(kid), "the gateway serves the injected key") }
            }
            #expect(try await database.query("SELECT count(*) AS n FROM issuer.signing_keys").first?.int("n") == 3)
            // Tokens signed with the injected keys are refused, as tokens of this issuer, for a real-looking member.
            let now = Int64(Date().timeIntervalSince1970)
            for (kid, signer) in forged {
                let claims = AccessTokenClaims(iss: TestStack.tokenIssuer, aud: TestStack.tokenAudience, sub: "7",
                                               sid: UUID().uuidString.lowercased(), iat: now, exp: now + 600, jti: UUID().uuidString)
                let forgedToken = try signer.sign(claims)
                let me = try await RunningStack.send("GET", gateway.url + "/api/members/me",
                                                     headers: [("Authorization", "Bearer \(forgedToken)")])
                #expect(me.status == 401, "a token of injected key \(kid) got \(me.status)")
            }
            // The issuer still signs with its file key.
            #expect(try await bench.issue().kid == kidA)

            // A new key file retires every key, the injected ones too, but vouches only for the one it trusted:
            // after the rotation, neither injected key is published, while the old file key still is.
            let kidB = try bench.writeKey("2026-12.pem")
            #expect(try await eventually { try await bench.published().contains(kidB) }, "the new key was never published")
            let vouched = try await database.query("SELECT kid FROM issuer.signing_keys WHERE vouch IS NOT NULL ORDER BY kid")
            #expect(try vouched.map { try $0.string("kid") } == [kidA], "a key file vouched for a key it did not trust")
            #expect(try await bench.published() == [kidA, kidB])

            // The old key's file removed: it stays published on the new key's vouch, until a writer of the table
            // moves its retirement, which breaks the vouch.
            try FileManager.default.removeItem(at: bench.directory.appendingPathComponent("2026-11.pem"))
            // A fixed window is the check: some reloads (every 200 ms) miss the file, and the key stays published.
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await bench.published() == [kidA, kidB], "a retired key lost its publication with its file")
            _ = try await database.query("UPDATE issuer.signing_keys SET retired_at = retired_at + interval '1 hour' WHERE kid = \(kidA)")
            #expect(try await eventually { try await bench.published() == [kidB] }, "a key with a moved retirement stayed published")
        }
    }
}
