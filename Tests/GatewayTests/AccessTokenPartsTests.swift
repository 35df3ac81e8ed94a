import Authentication
import Collections
import Contracts
import Crypto
import Foundation
import JOSE
import Testing
@testable import Gateway

/// The pure parts of the gateway's access-token check: the signature and claims check, the cache of
/// verified tokens, the catch-up gate, and the member a token speaks for.
@Suite("The parts of the access-token check")
struct AccessTokenPartsTests {
    private static let check = AccessTokenCheck(issuer: "https://issuer.test", audience: "api", leeway: 30)

    private static func claims(iss: String = "https://issuer.test", aud: String = "api", sub: String = "7",
                               iat: Int64 = 1_000, exp: Int64 = 2_000) -> AccessTokenClaims {
        AccessTokenClaims(iss: iss, aud: aud, sub: sub, sid: "s-1", iat: iat, exp: exp, jti: UUID().uuidString)
    }

    private static func failure(_ body: () throws(ServiceFailure) -> Void) -> ServiceFailure? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("a token signed by a key of the set, for this issuer and audience, within its times, gives its claims")
    func accepts() throws {
        let signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "k1", algorithm: .ES256)
        let keys = VerificationKeySet(JWKSet(keys: [signer.jwk]))
        let token = try signer.sign(Self.claims())
        let claims = try Self.check.claims(of: AccessTokenCheck.parse(token), keys: keys, now: 1_500)
        #expect(claims.sub == "7" && claims.sid == "s-1")
    }

    @Test("a token is refused (401, saying why) when malformed, signed by another key, foreign, expired or from the future")
    func refuses() throws {
        let signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "k1", algorithm: .ES256)
        let stranger = JWTSigner(key: try PrivateKey.generateP256(), kid: "k1", algorithm: .ES256)
        let keys = VerificationKeySet(JWKSet(keys: [signer.jwk]))
        let cases: [(String, Int64, String)] = [
            (try stranger.sign(Self.claims()), 1_500, "The access token is not valid."),
            (try signer.sign(Self.claims(iss: "https://other.test")), 1_500, "The access token is not for this service."),
            (try signer.sign(Self.claims(aud: "other")), 1_500, "The access token is not for this service."),
            (try signer.sign(Self.claims()), 2_000, "The access token has expired."),
            (try signer.sign(Self.claims(iat: 1_531)), 1_500, "The access token is not valid yet."),
        ]
        for (token, now, message) in cases {
            let failure = Self.failure { () throws(ServiceFailure) in _ = try Self.check.claims(of: AccessTokenCheck.parse(token), keys: keys, now: now) }
            #expect(failure?.code == .unauthorized)
            #expect(failure?.message == message)
        }
        // Within the leeway, a token issued a little in the future is taken.
        #expect(throws: Never.self) { try Self.check.claims(of: AccessTokenCheck.parse(signer.sign(Self.claims(iat: 1_530))), keys: keys, now: 1_500) }
        let malformed = Self.failure { () throws(ServiceFailure) in _ = try AccessTokenCheck.parse("not.a-token") }
        #expect(malformed?.message == "The access token is malformed.")
        let huge = Self.failure { () throws(ServiceFailure) in _ = try AccessTokenCheck.parse(String(repeating: "a", count: 5_000)) }
        #expect(huge?.code == .unauthorized)
    }

    @Test("an issued token's claims and kid are read without a key, and only when they are this service's")
    func issuedClaims() throws {
        let signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "k1", algorithm: .ES256)
        let issued = Self.check.claims(ofIssued: try signer.sign(Self.claims()))
        #expect(issued?.claims.sub == "7" && issued?.kid == "k1")
        #expect(Self.check.claims(ofIssued: try signer.sign(Self.claims(aud: "other"))) == nil)
        #expect(Self.check.claims(ofIssued: "garbage") == nil)
    }

    @Test("the verified-token cache gives back what it was told, and forgets the token that expires first when full")
    func verifiedTokens() {
        let cache = VerifiedTokens(capacity: 2)
        cache.remember("a", Self.claims(exp: 3_000), kid: "k1", now: 1_000)
        cache.remember("b", Self.claims(exp: 2_000), kid: "k1", now: 1_000)
        #expect(cache.entry(for: "a")?.claims.exp == 3_000)
        #expect(cache.entry(for: "a")?.kid == "k1")
        cache.remember("c", Self.claims(exp: 4_000), kid: nil, now: 1_000)
        #expect(cache.count == 2)
        #expect(cache.entry(for: "b") == nil)
        #expect(cache.entry(for: "c")?.claims.exp == 4_000)
        #expect(cache.entry(for: "unknown") == nil)
    }

    @Test("the catch-up gate holds waiters until it opens, lets them all through, and times out a waiter")
    func catchUpGate() async {
        let gate = Gate()
        #expect(!gate.isOpen)
        #expect(await gate.wait(timeout: .milliseconds(50)) == false)
        let waiters = Task {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<10 { group.addTask { await gate.wait(timeout: .seconds(30)) } }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }
        try? await Task.sleep(for: .milliseconds(100))
        #expect(gate.open())
        #expect(!gate.open(), "a second open is not a first")
        #expect(await waiters.value == Array(repeating: true, count: 10))
        #expect(await gate.wait(timeout: .zero))
    }

    @Test("a token's member is its sub when that is a member ID above zero, else 401", arguments: [
        ("42", Int64?.some(42)), ("1", 1), ("0", nil), ("-3", nil), ("abc", nil), ("", nil), ("99999999999999999999", nil),
    ])
    func authenticatedMember(_ sub: String, _ expected: Int64?) {
        var member: AuthenticatedMember?
        let failure = Self.failure { () throws(ServiceFailure) in member = try AuthenticatedMember(Self.claims(sub: sub), token: "t") }
        #expect(member?.id == expected)
        #expect((failure?.code == .unauthorized) == (expected == nil))
    }
}
