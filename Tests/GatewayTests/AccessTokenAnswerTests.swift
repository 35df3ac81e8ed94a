import Contracts
import Crypto
import Foundation
import JOSE
import JSON
import Testing
@testable import Gateway

/// The gateway's handler in process with the services stubbed and the issuer's key set its own: each access
/// token it must refuse is 401 `UNAUTHORIZED` before the route's service is asked, and a token it cannot yet
/// check is 503.
@Suite("The gateway's refusals of access tokens")
struct AccessTokenAnswerTests {
    /// A token that must not pass.
    enum BadToken: String, CaseIterable, Sendable {
        case expired, unknownKey, othersKeyUnderIssuersKid, wrongIssuer, wrongAudience, memberZero, memberNegative,
             memberNotANumber, malformed, tooLong
    }

    private static func token(_ bad: BadToken, _ gateway: InProcessGateway) throws -> String {
        switch bad {
        case .expired: try gateway.token(expiresIn: -1)
        case .unknownKey: try gateway.token(signer: JWTSigner(key: try PrivateKey.generateP256(), kid: "stranger", algorithm: .ES256))
        case .othersKeyUnderIssuersKid:
            try gateway.token(signer: JWTSigner(key: try PrivateKey.generateP256(), kid: gateway.signer.kid, algorithm: .ES256))
        case .wrongIssuer: try gateway.token(iss: "https://other-issuer.test")
        case .wrongAudience: try gateway.token(aud: "other-api")
        case .memberZero: try gateway.token(sub: "0")
        case .memberNegative: try gateway.token(sub: "-7")
        case .memberNotANumber: try gateway.token(sub: "seven")
        case .malformed: "not.a-token"
        case .tooLong: try gateway.token() + String(repeating: "a", count: 4_096)
        }
    }

    @Test("a bad access token is 401 UNAUTHORIZED and the route's service is not asked", arguments: BadToken.allCases)
    func refused(_ bad: BadToken) async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.answer(Endpoints.listSessions, with: SessionList(sessions: []))
        let answer = await gateway.send("GET", "/api/auth/sessions", bearer: try Self.token(bad, gateway))
        answer.expectRefusal(401, "UNAUTHORIZED")
        #expect(services.calls(to: Endpoints.listSessions).isEmpty)
    }

    @Test("the issuer's own token passes, and the route is asked for the token's member")
    func accepted() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.answer(Endpoints.listSessions, with: SessionList(sessions: []))
        let token = try gateway.token(sub: "31")
        #expect(await gateway.send("GET", "/api/auth/sessions", bearer: token).status == 200)
        #expect(services.requests(to: Endpoints.listSessions) == [ListSessionsRequest(memberId: 31, accessToken: token)])
        // The key set was fetched from the issuer through the same services, for every caller waiting, so
        // with no one's request ID.
        #expect(services.calls(to: Endpoints.accessTokenKeys).map(\.requestID) == [nil])
    }

    @Test("a token of an ended session is refused, also when it passed before and is remembered as verified")
    func endedSession() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.answer(Endpoints.listSessions, with: SessionList(sessions: []))
        let sid = UUID().uuidString.lowercased()
        let token = try gateway.token(sid: sid)
        #expect(await gateway.send("GET", "/api/auth/sessions", bearer: token).status == 200)
        gateway.handler.accessTokens.sessionsEnded([sid])
        let answer = await gateway.send("GET", "/api/auth/sessions", bearer: token)
        answer.expectRefusal(401, "UNAUTHORIZED")
        #expect(answer.message == "The access token's session has ended; sign in again.")
        #expect(services.calls(to: Endpoints.listSessions).count == 1)
        // A token of that session the gateway has never seen is refused too.
        await gateway.send("GET", "/api/auth/sessions", bearer: try gateway.token(sid: sid)).expectRefusal(401, "UNAUTHORIZED")
    }

    @Test("a token remembered as verified is refused once the issuer's key set has lost its key, however far off its expiry")
    func keyRemoved() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.answer(Endpoints.listSessions, with: SessionList(sessions: []))
        // Signed with the issuer's key (say, one that leaked), expiring in ten years.
        let longLived = try gateway.token(expiresIn: 10 * 365 * 86_400)
        #expect(await gateway.send("GET", "/api/auth/sessions", bearer: longLived).status == 200)
        let checks = { gateway.handler.metrics.counterValue("access_token_signature_checks_total") }
        #expect(checks() == 1)
        // A rotation: the issuer publishes the next key beside it; a token naming it makes the gateway fetch
        // the set again, and the remembered token still costs no signature check.
        let next = JWTSigner(key: try PrivateKey.generateP256(), kid: "next-key", algorithm: .ES256)
        func publish(_ signers: [JWTSigner]) throws {
            services.answer(Endpoints.accessTokenKeys, with: try AccessTokenKeys(
                jwks: JSONValue(encoding: JWKSet(keys: signers.map(\.jwk))), issuer: InProcessGateway.issuer, audience: InProcessGateway.audience))
        }
        try publish([gateway.signer, next])
        try await Task.sleep(for: .milliseconds(1100))  // an unknown key is fetched for at most once a second
        #expect(await gateway.send("GET", "/api/auth/sessions", bearer: try gateway.token(signer: next)).status == 200)
        #expect(await gateway.send("GET", "/api/auth/sessions", bearer: longLived).status == 200)
        #expect(checks() == 2, "the remembered token was checked again while its key is still published")
        // Then the issuer publishes the next key only, and the gateway fetches the set again (a token naming
        // a key it lacks, as after a notice or its regular refetch).
        try publish([next])
        try await Task.sleep(for: .milliseconds(1100))
        let stranger = JWTSigner(key: try PrivateKey.generateP256(), kid: "stranger", algorithm: .ES256)
        #expect(await gateway.send("GET", "/api/auth/sessions", bearer: try gateway.token(signer: stranger)).status == 401)
        #expect(services.calls(to: Endpoints.accessTokenKeys).count == 3)
        await gateway.send("GET", "/api/auth/sessions", bearer: longLived).expectRefusal(401, "UNAUTHORIZED")
    }

    @Test("a token is 503 while the ended sessions are not read, or no services are connected")
    func notYetCheckable() async throws {
        let waiting = try InProcessGateway(caughtUp: false, serviceTimeout: .milliseconds(50))
        let answer = await waiting.send("GET", "/api/auth/sessions", bearer: try waiting.token())
        answer.expectRefusal(503, "SERVICE_UNAVAILABLE")
        #expect(answer.headers["retry-after"] == "1")
        #expect(try #require(waiting.services).calls(to: Endpoints.listSessions).isEmpty)
        for caughtUp in [false, true] {
            let alone = try InProcessGateway(connected: false, caughtUp: caughtUp)
            await alone.send("GET", "/api/auth/sessions", bearer: try alone.token()).expectRefusal(503, "SERVICE_UNAVAILABLE")
        }
    }

    @Test("a token is 503 or 504 when the issuer's key set cannot be fetched", arguments: [
        ("SERVICE_UNAVAILABLE", 503), ("TIMEOUT", 504),
    ])
    func keysUnavailable(_ code: String, _ status: Int) async throws {
        let gateway = try InProcessGateway()
        try #require(gateway.services).refuse(Endpoints.accessTokenKeys, with: ServiceFailure(ErrorCode(rawValue: code), "No keys."))
        await gateway.send("GET", "/api/members/me", bearer: try gateway.token()).expectRefusal(status, code)
    }
}
