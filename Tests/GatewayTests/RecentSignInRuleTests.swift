import Authentication
import Contracts
import Testing

/// The recent sign-in rule alone (RFC 9470 `max_age`): no servers.
@Suite("Recent sign-in rule")
struct RecentSignInRuleTests {
    let rule = RecentSignIn(window: .seconds(300))
    let now: Int64 = 1_800_000_000

    func claims(authTime: Int64?, iat: Int64? = nil) -> AccessTokenClaims {
        AccessTokenClaims(iss: "i", aud: "a", sub: "7", sid: "s", iat: iat ?? now, exp: now + 900, jti: "j", authTime: authTime)
    }

    func refused(_ claims: AccessTokenClaims) -> Bool {
        do {
            try rule.check(claims, now: now)
            return false
        } catch {
            return error.code == .reauthenticationRequired
        }
    }

    @Test("a sign-in within the window passes, to its last second; older, absent or after the token's issue does not")
    func window() {
        #expect(!refused(claims(authTime: now)))
        #expect(!refused(claims(authTime: now - 300)))
        #expect(refused(claims(authTime: now - 301)))
        #expect(refused(claims(authTime: nil)))
        // A refreshed token: issued now, its session signed in four minutes ago.
        #expect(!refused(claims(authTime: now - 240, iat: now)))
        // The issuer never signs a sign-in later than the token's issue, beyond two replicas' clocks.
        #expect(!refused(claims(authTime: now - 100 + 10, iat: now - 100)))
        #expect(refused(claims(authTime: now - 100 + RecentSignIn.issuerClockAllowance + 1, iat: now - 100)))
        // The issuer's clock a little ahead of this one: its own now is still recent.
        #expect(!refused(claims(authTime: now + 3, iat: now + 3)))
        #expect(rule.maxAge == 300)
    }
}
