import Contracts
import Crypto
import Foundation
import JOSE
import Logging
import Metrics
import Testing
@testable import Gateway

/// Everything a client can grow in the gateway has a bound, and growing it past the bound costs no
/// more than growing it below: nothing copies or scans the whole table.
@Suite("The gateway's tables stay within their bounds")
struct GrowthBoundTests {
    private static let logger = Logger(label: "gateway-test", level: .critical)

    @Test("150,000 live ended sessions in a list of 100,000: the 100,000 whose tokens expire last are kept, the rest counted as dropped",
          .timeLimit(.minutes(1)))
    func endedSessions() {
        let metrics = MetricsRegistry()
        let verifier = AccessTokenVerifier(issuer: "i", audience: "a", leeway: .seconds(0), maxEndedSessions: 100_000,
                                           logger: Self.logger, metrics: metrics)
        let start = Date().addingTimeInterval(3600)
        for index in 0..<150_000 {
            verifier.sessionsEnded(["s\(index)"], tokensExpireAt: start.addingTimeInterval(Double(index)))
        }
        #expect(verifier.endedSessions.count == 100_000)
        #expect(!verifier.endedSessions.contains("s49999"))
        #expect(verifier.endedSessions.contains("s50000"))
        #expect(verifier.endedSessions.contains("s149999"))
        #expect(metrics.counterValue("access_token_ended_sessions_dropped_total") == 50_000)
        #expect(metrics.render().contains("access_token_ended_sessions 100000"))
    }

    @Test("a full list fails closed: a token issued before a forgotten end is refused, one issued after is not")
    func endedSessionsFailClosed() {
        let sessions = EndedSessions(capacity: 2, leeway: 0, logger: Self.logger, metrics: MetricsRegistry())
        let now = Date()
        let start = Int64(now.timeIntervalSince1970)
        func token(_ sid: String, issued: Int64) -> AccessTokenClaims {
            AccessTokenClaims(iss: "i", aud: "a", sub: "1", sid: sid, iat: issued, exp: issued + 900, jti: "j")
        }
        sessions.end(["a", "b"], tokensExpireAt: now.addingTimeInterval(100), now: now)
        #expect(sessions.refuses(token("live", issued: start - 10)) == nil, "nothing forgotten yet")
        #expect(sessions.refuses(token("a", issued: start - 10)) != nil)
        // "c" ends 50 s later and pushes "a" out: a's tokens, all issued before its end, stay refused.
        sessions.end(["c"], tokensExpireAt: now.addingTimeInterval(200), now: now.addingTimeInterval(50))
        #expect(!sessions.contains("a"))
        #expect(sessions.refuses(token("a", issued: start - 10)) != nil)
        #expect(sessions.refuses(token("a", issued: start)) != nil)
        #expect(sessions.refuses(token("live", issued: start - 10)) != nil, "a token as old as a forgotten end may be of it")
        #expect(sessions.refuses(token("live", issued: start + EndedSessions.clockMargin)) != nil, "the clocks' margin")
        #expect(sessions.refuses(token("live", issued: start + EndedSessions.clockMargin + 1)) == nil)
        #expect(sessions.refuses(token("c", issued: start + 40)) != nil)
    }

    @Test("the mark is the forgotten session's end by the issuer's clock plus a margin, not when this gateway heard of it")
    func endedSessionsMarkIsTheEnd() {
        let sessions = EndedSessions(capacity: 1, leeway: 60, logger: Self.logger, metrics: MetricsRegistry())
        let now = Date()
        let start = Int64(now.timeIntervalSince1970)
        func token(issued: Int64) -> AccessTokenClaims {
            AccessTokenClaims(iss: "i", aud: "a", sub: "1", sid: "live", iat: issued, exp: issued + 900, jti: "j")
        }
        // Read at this gateway's start: sessions that ended ten and five minutes ago.
        sessions.end(["a"], endedAt: now.addingTimeInterval(-600), tokensExpireAt: now.addingTimeInterval(300), now: now)
        sessions.end(["b"], endedAt: now.addingTimeInterval(-300), tokensExpireAt: now.addingTimeInterval(600), now: now)
        #expect(!sessions.contains("a"))
        // "a" ended 600 s ago (a fraction of a second counts as one): tokens from up to the clock margin after
        // that are refused, the later ones are not.
        let margin = EndedSessions.clockMargin
        #expect(sessions.refuses(token(issued: start - 600 + margin)) != nil)
        #expect(sessions.refuses(token(issued: start - 600 + margin + 2)) == nil)
        #expect(sessions.refuses(token(issued: start - 1)) == nil)

        // An end a day ahead (a database clock that jumped): the mark goes no further than this clock allows.
        sessions.end(["c"], endedAt: now.addingTimeInterval(86_400), tokensExpireAt: now.addingTimeInterval(90_000), now: now)
        sessions.end(["d"], endedAt: now, tokensExpireAt: now.addingTimeInterval(100_000), now: now)
        #expect(!sessions.contains("c"))
        #expect(sessions.refuses(token(issued: start + 2 * margin + 1)) == nil, "a refreshed token is refused for a day")
    }

    @Test("an ended session is dropped once its tokens have expired, at the next session that ends")
    func endedSessionsExpire() {
        let sessions = EndedSessions(capacity: 100, leeway: 60, logger: Self.logger, metrics: MetricsRegistry())
        let now = Date()
        sessions.end(["a", "b"], tokensExpireAt: now.addingTimeInterval(10), now: now)
        sessions.end(["c"], tokensExpireAt: now.addingTimeInterval(900), now: now)
        // Within the leeway the tokens could still be accepted somewhere: kept.
        sessions.end(["d"], tokensExpireAt: now.addingTimeInterval(900), now: now.addingTimeInterval(60))
        #expect(sessions.count == 4)
        sessions.end(["e"], tokensExpireAt: now.addingTimeInterval(900), now: now.addingTimeInterval(71))
        #expect(sessions.count == 3)
        #expect(!sessions.contains("a") && sessions.contains("c"))
        // A later event for a session already on the list cannot shorten its stay.
        sessions.end(["c"], tokensExpireAt: now.addingTimeInterval(20), now: now.addingTimeInterval(72))
        sessions.end(["f"], tokensExpireAt: now.addingTimeInterval(900), now: now.addingTimeInterval(200))
        #expect(sessions.contains("c"))
    }

    @Test("2,500 tokens remembered as verified in a cache of 1,000: the cache holds the 1,000 newest, not none")
    func verifiedTokens() throws {
        let verifier = AccessTokenVerifier(issuer: "i", audience: "a", leeway: .seconds(0), maxCached: 1_000,
                                           logger: Self.logger, metrics: MetricsRegistry())
        let signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "k", algorithm: .ES256)
        let now = Int64(Date().timeIntervalSince1970)
        for index in 0..<2_500 {
            let claims = AccessTokenClaims(iss: "i", aud: "a", sub: "1", sid: "s\(index)", iat: now, exp: now + 900 + Int64(index), jti: "j\(index)")
            // Without the claims beside it (an older issuer): the token is parsed.
            verifier.rememberIssued(TokenPair(accessToken: try signer.sign(claims), refreshToken: "r", expiresIn: 900,
                                              memberId: 1, sessionId: claims.sid))
        }
        #expect(verifier.cachedCount == 1_000)
    }

    @Test("a flood of fresh client addresses keeps the limiter within its bound and does not refill a limited address")
    func rateLimiterAddresses() {
        let limiter = RateLimiter(rate: 1, burst: 2, maxAddresses: 100)
        let now = ContinuousClock.now
        #expect(limiter.acquire("198.51.100.1", now: now) == nil)
        #expect(limiter.acquire("198.51.100.1", now: now) == nil)
        #expect(limiter.acquire("198.51.100.1", now: now) != nil)
        for index in 0..<1_000 {
            #expect(limiter.acquire("10.0.\(index / 256).\(index % 256)", now: now) == nil)
        }
        #expect(limiter.addressCount <= 100)
        #expect(limiter.acquire("198.51.100.1", now: now) != nil, "the flood gave the limited address a fresh bucket")
        // Once every bucket would be full again, the next request finds them gone.
        _ = limiter.acquire("203.0.113.9", now: now + .seconds(10))
        #expect(limiter.addressCount == 1)
    }
}
