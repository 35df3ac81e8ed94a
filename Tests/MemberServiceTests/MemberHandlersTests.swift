import Authentication
import Contracts
import Crypto
import Foundation
import JOSE
import JSON
import Logging
import ServiceStubs
import Testing
import TestSupport
@testable import Messaging
@testable import MemberService

/// The member-service's use cases on an in-memory repository, with the issuer stood in for and access tokens
/// signed by a test key: the rules of each endpoint (the proof, the recent sign-in, the nonce spent first, the
/// cleaning of what a provider says, the calls to the issuer), in milliseconds, without PostgreSQL or NATS.
@Suite("The member-service's use cases, in memory")
struct MemberHandlersTests {
    let repository = InMemoryMemberRepository()
    let issuer = StubServices()
    private let signer = JWTSigner(key: try! PrivateKey.generateP256(), kid: "k", algorithm: .ES256)
    let handlers: MemberHandlers
    private static let window: Duration = .seconds(300)

    init() throws {
        let set = VerificationKeySet(keys: [try VerificationKey(kid: "k", publicKey: signer.key.publicKey, algorithm: .ES256)])
        let proof = MemberProof(leeway: .seconds(0)) { _ in MemberProof.TrustedKeys(set: set, issuer: "i", audience: "a") }
        handlers = MemberHandlers(members: repository, proof: proof, issuer: issuer, issuerTimeout: .seconds(1),
                                  recentSignIn: RecentSignIn(window: Self.window), logger: Logger(label: "member-test", level: .critical))
        issuer.answer(Endpoints.endDeletedMember) { _ in SessionsEnded(sessionIds: ["s1"]) }
        issuer.answer(Endpoints.endIdentitySessions) { _ in SessionsEnded(sessionIds: ["s2"]) }
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// An access token of `memberId` whose session signed in with its provider `signedInAgo` seconds ago.
    func token(_ memberId: Int64, signedInAgo: Int64 = 0) throws -> String {
        let now = Self.now
        return try signer.sign(AccessTokenClaims(iss: "i", aud: "a", sub: String(memberId), sid: "s", iat: now, exp: now + 900,
                                                 jti: UUID().uuidString, authTime: now - signedInAgo))
    }

    func identity(_ provider: Provider = .google, email: String? = nil, verified: Bool? = nil,
                          signedInAt: Int64? = nil) -> VerifiedIdentity {
        var identity = VerifiedIdentity(provider: provider, subject: UUID().uuidString, email: email, emailVerified: verified)
        identity.signedInAt = signedInAt
        return identity
    }

    /// Logs `identity` in and returns the request handed on to the issuer.
    func login(_ request: MemberLoginRequest) async throws -> IssueTokensRequest {
        let hop = try await handlers.login(request)
        guard case .forward(let subject, let payload) = hop.step else { throw ServiceFailure.internal }
        #expect(subject == Endpoints.issueTokens.subject)
        return try MessageCoding.decode(IssueTokensRequest.self, from: payload)
    }

    @Test("a login hands the member on to the issuer with the login's sign-in and key, created once, found after")
    func loginHandsOn() async throws {
        let identity = identity(signedInAt: Self.now - 5)
        let first = try await login(MemberLoginRequest(identity: identity, deviceId: "d", attemptKey: "key"))
        let second = try await login(MemberLoginRequest(identity: identity, deviceId: "d"))
        #expect(first.memberId == second.memberId && first.deviceId == "d" && first.provider == .google)
        #expect(first.isExistingMember == false && second.isExistingMember == true)
        #expect(first.signedInAt == identity.signedInAt && first.attemptKey == "key")
    }

    @Test("a login keeps what is acceptable of the provider's and app's details, and drops the rest")
    func loginCleansDetails() async throws {
        var identity = identity(email: "not an email", verified: true)
        identity.name = "Kim\u{0007}Minji"
        identity.pictureUrl = "http://example.com/p.png"
        let handed = try await login(MemberLoginRequest(identity: identity, deviceId: "d", timezone: "Mars/Olympus", locale: "ko-kr"))
        let member = try #require(try await repository.member(handed.memberId))
        #expect(member.email == nil && member.pictureUrl == nil && member.timezone == nil && member.locale == "ko-KR")
        #expect(member.name?.unicodeScalars.contains { $0.properties.generalCategory == .control } == false)
    }

    @Test("a login's nonce is used once: its replay is refused before a member is made")
    func nonceUsedOnce() async throws {
        let nonce = UsedNonce(id: UUID().uuidString, expiresAt: Self.now + 600)
        _ = try await login(MemberLoginRequest(identity: identity(), deviceId: "d", nonce: nonce))
        let written = await repository.events.count
        let replay = await failure { _ = try await login(MemberLoginRequest(identity: identity(), deviceId: "d", nonce: nonce)) }
        #expect(replay?.code == .invalidProviderToken && replay?.reason == NonceRefusal.used)
        #expect(await repository.events.count == written, "the refused replay made a member")
    }

    @Test("a profile needs the member's own token, and shows its email verified only while a provider vouches for it")
    func profile() async throws {
        let member = try await login(MemberLoginRequest(identity: identity(email: "a@example.com", verified: true), deviceId: "d")).memberId
        let profile = try await handlers.profile(MemberGetRequest(memberId: member, accessToken: try token(member)))
        #expect(profile.email == "a@example.com" && profile.emailVerified)
        let other = await failure { _ = try await handlers.profile(MemberGetRequest(memberId: member, accessToken: try token(member + 1))) }
        #expect(other?.code == .unauthorized)
        let unverified = try await login(MemberLoginRequest(identity: identity(email: "b@example.com", verified: false), deviceId: "d")).memberId
        #expect(try await !handlers.profile(MemberGetRequest(memberId: unverified, accessToken: try token(unverified))).emailVerified)
    }

    @Test("a link needs a recent sign-in of the session and of the identity linked, else nothing is linked")
    func linkNeedsRecentSignIns() async throws {
        let member = try await login(MemberLoginRequest(identity: identity(), deviceId: "d")).memberId
        let stale = await failure {
            _ = try await handlers.link(LinkIdentityRequest(memberId: member, accessToken: try token(member, signedInAgo: 3_600),
                                                            identity: identity(.kakao, signedInAt: Self.now)))
        }
        #expect(stale?.code == .reauthenticationRequired)
        let captured = await failure {
            _ = try await handlers.link(LinkIdentityRequest(memberId: member, accessToken: try token(member),
                                                            identity: identity(.kakao, signedInAt: Self.now - 3_600)))
        }
        #expect(captured?.code == .providerTokenExpired && captured?.reason == "tooOldToLink")
        #expect(try #require(try await repository.member(member)).identities.count == 1)
        let linked = try await handlers.link(LinkIdentityRequest(memberId: member, accessToken: try token(member),
                                                                 identity: identity(.kakao, signedInAt: Self.now)))
        #expect(linked.identities.map(\.provider) == [.google, .kakao])
    }

    @Test("an update is checked by the profile rules before anything is written")
    func updateChecked() async throws {
        let member = try await login(MemberLoginRequest(identity: identity(), deviceId: "d")).memberId
        let bad = await failure {
            _ = try await handlers.update(MemberUpdateRequest(memberId: member, accessToken: try token(member), timezone: "Mars/Olympus"))
        }
        #expect(bad?.code == .invalidRequest)
        #expect(await !repository.events(of: member).contains(Events.memberUpdated.name))
        let updated = try await handlers.update(MemberUpdateRequest(memberId: member, accessToken: try token(member), timezone: "Asia/Seoul"))
        #expect(updated.timezone == "Asia/Seoul")
    }

    @Test("a deletion has the issuer end the member's sessions, also when repeated")
    func deletionEndsSessions() async throws {
        let member = try await login(MemberLoginRequest(identity: identity(), deviceId: "d")).memberId
        let first = try await handlers.delete(MemberDeleteRequest(memberId: member, accessToken: try token(member)))
        let again = try await handlers.delete(MemberDeleteRequest(memberId: member, accessToken: try token(member)))
        #expect(first.deleted && !again.deleted)
        #expect(first.sessionsEnded?.sessionIds == ["s1"] && again.sessionsEnded?.sessionIds == ["s1"])
        #expect(issuer.requests(to: Endpoints.endDeletedMember).map(\.memberId) == [member, member])
    }

    @Test("Apple's consent-revoked ends the identity's sessions, or the member's when it was the last identity")
    func appleNotificationEndsSessions() async throws {
        let apple = identity(.apple)
        let member = try await login(MemberLoginRequest(identity: identity(), deviceId: "d")).memberId
        _ = try await handlers.link(LinkIdentityRequest(memberId: member, accessToken: try token(member), identity: apple))
        let revoked = AppleNotification(type: "consent-revoked", subject: apple.subject, jti: UUID().uuidString, issuedAt: Date())
        let outcome = try await handlers.appleNotification(revoked)
        #expect(outcome.identityEnded && !outcome.memberDeleted && outcome.sessionsEnded?.sessionIds == ["s2"])
        #expect(issuer.requests(to: Endpoints.endIdentitySessions).map(\.provider) == [.apple])
        #expect(issuer.requests(to: Endpoints.endDeletedMember).isEmpty)

        let only = identity(.apple)
        let alone = try await login(MemberLoginRequest(identity: only, deviceId: "d")).memberId
        let deleted = try await handlers.appleNotification(
            AppleNotification(type: "account-delete", subject: only.subject, jti: UUID().uuidString, issuedAt: Date()))
        #expect(deleted.memberDeleted && deleted.sessionsEnded?.sessionIds == ["s1"])
        #expect(issuer.requests(to: Endpoints.endDeletedMember).map(\.memberId) == [alone])
    }
}
