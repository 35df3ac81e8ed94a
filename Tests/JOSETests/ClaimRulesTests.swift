import Foundation
import JOSE
import Testing

@Suite("ClaimRules: each verification rule")
struct ClaimRulesTests {
    let rules = ClaimRules(issuers: ["https://accounts.google.com", "accounts.google.com"], audiences: ["web", "ios"])
    let now: Int64 = 1_700_000_000

    private func claims(_ change: (inout JWTClaims) -> Void = { _ in }) -> JWTClaims {
        var claims = JWTClaims(iss: "https://accounts.google.com", sub: "123", aud: ["web"], exp: now + 3600, iat: now - 10)
        change(&claims)
        return claims
    }

    private func check(_ claims: JWTClaims, at time: Int64? = nil) throws {
        try rules.check(claims, now: Date(timeIntervalSince1970: TimeInterval(time ?? now)))
    }

    @Test func acceptsGoodClaims() throws {
        try check(claims())
        try check(claims { $0.iss = "accounts.google.com" })
        try check(claims { $0.aud = ["other", "ios"]; $0.azp = "web" })
    }

    @Test func issuer() {
        #expect(throws: JOSEError.wrongIssuer) { try check(claims { $0.iss = "https://accounts.google.com/" }) }
        #expect(throws: JOSEError.missingClaim("iss")) { try check(claims { $0.iss = nil }) }
    }

    @Test func subject() {
        #expect(throws: JOSEError.missingClaim("sub")) { try check(claims { $0.sub = nil }) }
        #expect(throws: JOSEError.missingClaim("sub")) { try check(claims { $0.sub = "" }) }
    }

    @Test func audience() {
        #expect(throws: JOSEError.wrongAudience) { try check(claims { $0.aud = ["android"] }) }
        #expect(throws: JOSEError.missingClaim("aud")) { try check(claims { $0.aud = [] }) }
    }

    @Test func authorizedParty() {
        #expect(throws: JOSEError.wrongAuthorizedParty) { try check(claims { $0.aud = ["web", "other"] }) }
        #expect(throws: JOSEError.wrongAuthorizedParty) { try check(claims { $0.aud = ["web", "other"]; $0.azp = "other" }) }
        // With a single audience, azp names the presenting client and is not checked (docs/providers.md).
        #expect(throws: Never.self) { try check(claims { $0.azp = "android" }) }
    }

    @Test func expiryWithLeeway() throws {
        let expiring = claims { $0.exp = now }
        try check(expiring, at: now + 59)
        #expect(throws: JOSEError.expired) { try check(expiring, at: now + 60) }
        #expect(throws: JOSEError.missingClaim("exp")) { try check(claims { $0.exp = nil }) }
    }

    @Test func notBeforeWithLeeway() throws {
        try check(claims { $0.nbf = now + 60 })
        #expect(throws: JOSEError.notYetValid) { try check(claims { $0.nbf = now + 61 }) }
    }

    @Test func issuedAtWithLeeway() throws {
        try check(claims { $0.iat = now + 60 })
        #expect(throws: JOSEError.issuedInFuture) { try check(claims { $0.iat = now + 61 }) }
        #expect(throws: JOSEError.missingClaim("iat")) { try check(claims { $0.iat = nil }) }
        var lenient = rules
        lenient.requireIssuedAt = false
        try lenient.check(claims { $0.iat = nil }, now: Date(timeIntervalSince1970: TimeInterval(now)))
    }

    @Test func customLeeway() throws {
        var strict = rules
        strict.leeway = .zero
        #expect(throws: JOSEError.expired) {
            try strict.check(claims { $0.exp = now }, now: Date(timeIntervalSince1970: TimeInterval(now)))
        }
        #expect(JOSEError.missingClaim("iat").code == "missingClaim")
        #expect(JOSEError.missingClaim("iat") != JOSEError.missingClaim("exp"))
    }
}
