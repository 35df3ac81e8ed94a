import Contracts
import Crypto
import Foundation
import JOSE
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
    private static let publishLead: Duration = .seconds(3)
    private static let accessTokenTTL: Duration = .seconds(6)

    @Test("a key file added is published at once and signs after the lead; the old key's tokens work until they expire")
    func rotationWithoutCutOver() async throws {
        // Its own NATS and database: these keys must not meet the shared stack's.
        let server = try await TestNATSServer.start(jetStream: true)
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signing-keys-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let kidA = try Self.writeKey(directory.appendingPathComponent("2026-11.pem"))

        let (issuer, databaseURL) = try await TestStack.startIssuer(natsURL: server.url) {
            $0.signingKeyFiles = [directory.path]
            $0.signingKeyPublishLead = Self.publishLead
            $0.accessTokenTTL = Self.accessTokenTTL
            $0.signingKeyReloadInterval = .milliseconds(200)
        }
        defer { Task { await issuer.stop() } }
        let gateway = try await StandaloneGateway.start(natsURL: server.url) {
            $0.rateLimitRPS = 0
            $0.clockSkew = .zero
        }
        defer { Task { await gateway.stop() } }
        try await gateway.waitUntilConnected()
        let nats = try await NATSConnection.connect(.init(url: server.url, name: "key-file-test"), logger: Logger(label: "test", level: .critical))
        defer { Task { await nats.drainAndClose() } }
        let client = ServiceClient(connection: nats, logger: Logger(label: "test", level: .critical))
        let database = PostgresClient(configuration: try PostgresConfiguration(url: databaseURL), logger: Logger(label: "test", level: .critical))
        defer { Task { await database.close() } }

        func issue() async throws -> String {
            try await client.call(Endpoints.issueTokens, IssueTokensRequest(memberId: 7, deviceId: "device-\(UUID().uuidString.prefix(6))",
                                                                            provider: .google), timeout: .seconds(10)).accessToken
        }
        func status(_ token: String) async throws -> Int {
            try await RunningStack.send("GET", gateway.url + "/api/auth/sessions", headers: [("Authorization", "Bearer \(token)")]).status
        }
        func published() async throws -> Set<String> {
            let response = try await RunningStack.send("GET", gateway.url + "/.well-known/jwks.json")
            return Set(try JSONDecoder().decode(JWKSet.self, from: Data(response.body)).keys.compactMap(\.kid))
        }

        // The first key signs at once.
        let tokenA = try await issue()
        #expect(try CompactJWS.parse(tokenA).header.kid == kidA)
        #expect(try await status(tokenA) == 200)

        // A second key file: published within a reload, and not yet signing.
        let kidB = try Self.writeKey(directory.appendingPathComponent("2026-12.pem"))
        try await Self.waitUntil("the new key is published") { try await published().contains(kidB) }
        let activatesAt = try #require(try await database.query(
            "SELECT activates_at FROM issuer.signing_keys WHERE kid = $1", [.text(kidB)]).first?.date("activates_at"))
        #expect(activatesAt.timeIntervalSinceNow > 0.5, "the new key signs only after the publish lead")
        #expect(try await published() == [kidA, kidB])
        if activatesAt.timeIntervalSinceNow > 0.5 {
            #expect(try CompactJWS.parse(try await issue()).header.kid == kidA)
        }

        // After the lead the new key signs; a token of the old key still works, and both are published.
        try await Task.sleep(for: .seconds(max(activatesAt.timeIntervalSinceNow, 0) + 0.3))
        let tokenB = try await issue()
        #expect(try CompactJWS.parse(tokenB).header.kid == kidB)
        #expect(try await status(tokenA) == 200, "a token of the old key is refused before it expired")
        #expect(try await status(tokenB) == 200)
        #expect(try await published() == [kidA, kidB])

        // Once the old key's last token has expired, it is no longer published (its file is still there)
        // and its token is refused; the new key signs on.
        try await Self.waitUntil("the old key leaves the JWKS") { try await !published().contains(kidA) }
        #expect(Date() >= activatesAt.addingTimeInterval(Self.accessTokenTTL.timeInterval - 1))
        #expect(try await status(tokenA) == 401)
        #expect(try CompactJWS.parse(try await issue()).header.kid == kidB)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("2026-11.pem").path))
    }

    /// Writes a new P-256 key in PEM to `file`; returns its `kid` (the JWK thumbprint the issuer uses).
    private static func writeKey(_ file: URL) throws -> String {
        let key = try PrivateKey.generateP256()
        try Data(key.pemRepresentation.utf8).write(to: file)
        return try JWK(publicKey: key.publicKey, kid: "", alg: .ES256).thumbprint()
    }

    private static func waitUntil(_ what: String, within limit: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("timed out waiting until \(what)")
        throw CancellationError()
    }
}
