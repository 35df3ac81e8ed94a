/// A NATS request/reply subject with its request and reply types: one Codable type per subject.
public struct Endpoint<Request: Codable & Sendable, Reply: Codable & Sendable>: Sendable {
    /// The subject the service's replicas subscribe to in a queue group.
    public let subject: String

    /// Declares an endpoint.
    public init(_ subject: String) {
        self.subject = subject
    }
}

/// Every request/reply subject of the system. The README lists them.
public enum Endpoints {
    /// token-verifier: prove a provider token and return the identity it names (a diagnostic: no service
    /// acts on this answer; logins and links go through ``login`` and ``link``).
    public static let verify = Endpoint<VerifyRequest, VerifiedIdentity>("auth.verifier.verify")
    /// token-verifier: a login. The verifier proves the provider token and hands what it proved to the
    /// member-service (``memberLogin``), which hands the member to the token-issuer (``issueTokens``), which
    /// answers the caller: each hop a subject only the one before may publish to, each failure answered
    /// straight to the caller by the service that failed.
    public static let login = Endpoint<LoginRequest, TokenPair>("auth.verifier.login")
    /// token-verifier: link another provider's identity to the Bearer's member: the verifier proves the
    /// provider token and hands it to the member-service (``memberLinkIdentity``), which checks the access token.
    public static let link = Endpoint<LinkRequest, MemberProfile>("auth.verifier.link")
    /// token-verifier: a server nonce for a device, which a login or link sends back (stateless: the verifier
    /// keeps nothing; the member-service records it as used).
    public static let issueNonce = Endpoint<NonceRequest, IssuedNonce>("auth.verifier.nonce")
    /// member-service: find the member of an identity the verifier proved, or create one, then hand it to
    /// the token-issuer. Sent by the token-verifier only.
    public static let memberLogin = Endpoint<MemberLoginRequest, TokenPair>("auth.member.login")
    /// member-service: a member's profile and identities.
    public static let memberGet = Endpoint<MemberGetRequest, MemberProfile>("auth.member.get")
    /// member-service: change a member's name, time zone or locale.
    public static let memberUpdate = Endpoint<MemberUpdateRequest, MemberProfile>("auth.member.update")
    /// token-issuer: start (or replace) the session of a member on a device and issue its tokens. Sent by
    /// the member-service only, for the member a login found or created.
    public static let issueTokens = Endpoint<IssueTokensRequest, TokenPair>("auth.issuer.issue")
    /// token-issuer: rotate a refresh token.
    public static let refreshTokens = Endpoint<RefreshTokensRequest, TokenPair>("auth.issuer.refresh")
    /// token-issuer: the public keys of service access tokens.
    public static let accessTokenKeys = Endpoint<AccessTokenKeysRequest, AccessTokenKeys>("auth.issuer.jwks")
}

/// Queue-group names: one per service, so replicas share the load.
public enum QueueGroups {
    /// The token-verifier's replicas.
    public static let tokenVerifier = "token-verifier"
    /// The member-service's replicas.
    public static let memberService = "member-service"
    /// The token-issuer's replicas.
    public static let tokenIssuer = "token-issuer"
}

extension Endpoints {
    /// Every service answers a ping on `auth.<queue group>.ping`, for the gateway's `/readyz`.
    public static func ping(_ queueGroup: String) -> Endpoint<PingRequest, PingReply> {
        Endpoint("auth.\(queueGroup).ping")
    }
}

/// A readiness probe.
public struct PingRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1

    /// Creates a ping.
    public init() {}
}

/// The answer to a ping.
public struct PingReply: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The service's name.
    public var service: String

    /// Creates an answer.
    public init(service: String) {
        self.service = service
    }
}
