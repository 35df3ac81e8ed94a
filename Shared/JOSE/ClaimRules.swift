import Foundation

/// The claim checks of docs/providers.md for one provider (or for our own access tokens).
public struct ClaimRules: Sendable {
    /// Accepted `iss` values, compared exactly.
    public var issuers: Set<String>
    /// Accepted client IDs; `aud` must contain one of them.
    public var audiences: Set<String>
    /// Clock-skew allowance applied to `exp`, `nbf` and `iat`.
    public var leeway: Duration
    /// Whether a token without `iat` is refused.
    public var requireIssuedAt: Bool

    /// Rules with the given issuers and audiences, a 60-second leeway and `iat` required.
    public init(issuers: Set<String>, audiences: Set<String>, leeway: Duration = .seconds(60), requireIssuedAt: Bool = true) {
        self.issuers = issuers
        self.audiences = audiences
        self.leeway = leeway
        self.requireIssuedAt = requireIssuedAt
    }

    /// Throws the first rule `claims` break at time `now`.
    ///
    /// `iss` must be accepted; `sub` present and non-empty; `aud` must contain an accepted ID; with several
    /// audiences `azp` is required and must be accepted (docs/providers.md; with one audience `azp` names the
    /// presenting client, e.g. Google's iOS client beside a server audience, and is not checked); `exp` is required and
    /// `now < exp + leeway`; `nbf` (if present) `<= now + leeway`; `iat` (if required or present) `<= now + leeway`.
    public func check(_ claims: JWTClaims, now: Date) throws(JOSEError) {
        guard let issuer = claims.iss else { throw JOSEError.missingClaim("iss") }
        guard issuers.contains(issuer) else { throw JOSEError.wrongIssuer }
        guard let subject = claims.sub, !subject.isEmpty else { throw JOSEError.missingClaim("sub") }
        // A user ID is printable: one with a control character (NUL, a line break) names nobody and breaks logs and databases.
        guard subject.utf8.count <= 255, !subject.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw JOSEError.malformed.with("sub is over 255 bytes or holds a control character")
        }
        guard !claims.aud.isEmpty else { throw JOSEError.missingClaim("aud") }
        guard claims.aud.contains(where: audiences.contains) else { throw JOSEError.wrongAudience }
        if claims.aud.count > 1 {
            guard let party = claims.azp else { throw JOSEError.wrongAuthorizedParty.with("several audiences and no azp") }
            guard audiences.contains(party) else { throw JOSEError.wrongAuthorizedParty }
        }
        let current = now.timeIntervalSince1970
        let slack = leewaySeconds
        guard let expiry = claims.exp else { throw JOSEError.missingClaim("exp") }
        guard current < Double(expiry) + slack else { throw JOSEError.expired }
        if let notBefore = claims.nbf, Double(notBefore) > current + slack {
            throw JOSEError.notYetValid
        }
        if let issuedAt = claims.iat {
            guard Double(issuedAt) <= current + slack else { throw JOSEError.issuedInFuture }
        } else if requireIssuedAt {
            throw JOSEError.missingClaim("iat")
        }
    }

    private var leewaySeconds: Double {
        let (seconds, attoseconds) = leeway.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
