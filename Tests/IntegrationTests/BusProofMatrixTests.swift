import Contracts
import Crypto
import DevIDP
import Foundation
import JOSE
import JSON
import Logging
import Messaging
import NATS
import Testing
import TestSupport

/// SPEC section 9: the gateway's identity is worth no more than the internet's access to it. For every
/// identity and every request subject of the permission table (`BusSubjects.requests`, which the README's
/// table is made from), the call is tried with and without the proof it needs:
///
/// - an identity that may not send the subject is refused by nats-server, with the proof or without;
/// - one that may send it acts only with the proof (a provider token, the member's access token, a
///   refresh token); without, it gets a refusal and changes nothing.
///
/// Each identity's run has a victim whose tokens the caller does not hold, and an attacker's own account.
/// After every call, the victim is as before: no session, profile change, deletion, link or unlink.
@Suite("What each identity can do with and without the proof a call needs")
struct BusProofMatrixTests {
    private static let stack = TestStack.isolated()
    private static let logger = Logger(label: "proof-matrix", level: .critical)

    /// A member with its tokens, logged in through the gateway.
    struct Member: Sendable {
        let id: Int64
        let accessToken: String
        let refreshToken: String
        let sessionId: String
        let googleSub: String

        static func login(_ stack: RunningStack) async throws -> Member {
            let sub = RunningStack.uniqueSubject("matrix")
            let login = try await stack.googleSession(sub: sub, deviceId: "matrix-\(UUID().uuidString.prefix(8))")
            let claims = try MessageCoding.decode(AccessTokenClaims.self, from: try CompactJWS.parse(login.accessToken).payload)
            return Member(id: login.memberId, accessToken: login.accessToken, refreshToken: login.refreshToken, sessionId: claims.sid,
                          googleSub: sub)
        }
    }

    /// One row of the matrix: a request subject, the request without its proof, aimed at the victim (nil
    /// where the sender is the proof), and the request with the proof for a target member: for a sender not
    /// listed, the victim with its own tokens (nats-server must refuse it all the same); for a listed one, a
    /// member of its own, so that the control changes no one else.
    struct Case: Sendable {
        let subject: String
        let without: [UInt8]?
        let with: @Sendable (_ target: Member) async throws -> [UInt8]
    }

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] { try MessageCoding.encode(value) }

    /// Every request subject, aimed at `victim` when the proof is missing.
    static func cases(_ stack: RunningStack, victim: Member, attacker: Member) async throws -> [Case] {
        let google = { @Sendable () async throws -> VerifyRequest in
            VerifyRequest(provider: .google, token: try await stack.googleToken(sub: RunningStack.uniqueSubject("matrix")))
        }
        let kakao = { @Sendable () async throws -> VerifyRequest in
            VerifyRequest(provider: .kakao, token: try await stack.idToken("kakao", sub: RunningStack.uniqueSubject("matrix")))
        }
        // A token of the victim's Google identity, signed by someone who is not Google.
        let forged = try JWTSigner(key: try PrivateKey.generateP256(), kid: "forged", algorithm: .ES256)
            .sign(["iss": JSONValue.string(stack.idp.issuer("google")), "aud": .string(TestStack.ClientID.googleIOS),
                   "sub": .string(victim.googleSub), "exp": .integer(Int64(Date().timeIntervalSince1970) + 600)])
        let forgedLogin = VerifyRequest(provider: .google, token: forged)
        let admin = AdminActor(admin: "matrix", reason: "the proof matrix")
        return [
            Case(subject: Endpoints.login.subject, without: try Self.encode(LoginRequest(verify: forgedLogin, deviceId: "attacker"))) { _ in
                try Self.encode(LoginRequest(verify: try await google(), deviceId: "matrix"))
            },
            Case(subject: Endpoints.link.subject,
                 without: try Self.encode(LinkRequest(verify: try await kakao(), memberId: victim.id, accessToken: attacker.accessToken))) { target in
                try Self.encode(LinkRequest(verify: try await kakao(), memberId: target.id, accessToken: target.accessToken))
            },
            Case(subject: Endpoints.verifyAppleNotification.subject, without: try Self.encode(AppleNotificationRequest(payload: "not.a.jws"))) { _ in
                let payload = try await stack.idp.mintAppleNotification(AppleNotificationMint(
                    type: "email-enabled", sub: RunningStack.uniqueSubject("apple"), email: "x@privaterelay.appleid.com"))
                return try Self.encode(AppleNotificationRequest(payload: payload))
            },
            Case(subject: Endpoints.verify.subject, without: try Self.encode(forgedLogin)) { _ in try Self.encode(try await google()) },
            // A nonce alone acts on no one: anyone listed may have one.
            Case(subject: Endpoints.issueNonce.subject, without: nil) { _ in try Self.encode(NonceRequest(deviceId: "matrix")) },
            // The sender is the proof: the identity is the target's, as a caller would forge it.
            Case(subject: Endpoints.memberLogin.subject, without: nil) { target in
                try Self.encode(MemberLoginRequest(identity: VerifiedIdentity(provider: .google, subject: target.googleSub), deviceId: "attacker"))
            },
            Case(subject: Endpoints.memberLinkIdentity.subject,
                 without: try Self.encode(LinkIdentityRequest(memberId: victim.id, accessToken: attacker.accessToken,
                                                         identity: VerifiedIdentity(provider: .kakao, subject: RunningStack.uniqueSubject("k"))))) { target in
                try Self.encode(LinkIdentityRequest(memberId: target.id, accessToken: target.accessToken,
                                               identity: VerifiedIdentity(provider: .kakao, subject: RunningStack.uniqueSubject("k"))))
            },
            Case(subject: Endpoints.memberAppleNotification.subject, without: nil) { _ in
                try Self.encode(AppleNotification(type: "email-enabled", subject: RunningStack.uniqueSubject("apple"), jti: UUID().uuidString,
                                             issuedAt: Date()))
            },
            Case(subject: Endpoints.memberGet.subject,
                 without: try Self.encode(MemberGetRequest(memberId: victim.id, accessToken: attacker.accessToken))) { target in
                try Self.encode(MemberGetRequest(memberId: target.id, accessToken: target.accessToken))
            },
            Case(subject: Endpoints.memberUpdate.subject,
                 without: try Self.encode(MemberUpdateRequest(memberId: victim.id, accessToken: attacker.accessToken, name: "pwned"))) { target in
                try Self.encode(MemberUpdateRequest(memberId: target.id, accessToken: target.accessToken, name: "Matrix"))
            },
            Case(subject: Endpoints.memberDelete.subject,
                 without: try Self.encode(MemberDeleteRequest(memberId: victim.id, accessToken: attacker.accessToken))) { target in
                try Self.encode(MemberDeleteRequest(memberId: target.id, accessToken: target.accessToken))
            },
            Case(subject: Endpoints.memberUnlinkIdentity.subject,
                 without: try Self.encode(UnlinkIdentityRequest(memberId: victim.id, accessToken: attacker.accessToken, provider: .google))) { target in
                try Self.encode(UnlinkIdentityRequest(memberId: target.id, accessToken: target.accessToken, provider: .google))
            },
            Case(subject: Endpoints.issueTokens.subject, without: nil) { target in
                try Self.encode(IssueTokensRequest(memberId: target.id, deviceId: "attacker", provider: .google))
            },
            Case(subject: Endpoints.endDeletedMember.subject, without: nil) { target in try Self.encode(DeletedMemberRequest(memberId: target.id)) },
            Case(subject: Endpoints.endIdentitySessions.subject, without: nil) { target in
                try Self.encode(EndIdentitySessionsRequest(memberId: target.id, provider: .google))
            },
            Case(subject: Endpoints.refreshTokens.subject, without: try Self.encode(RefreshTokensRequest(refreshToken: "not-a-refresh-token"))) { target in
                try Self.encode(RefreshTokensRequest(refreshToken: target.refreshToken))
            },
            Case(subject: Endpoints.logout.subject,
                 without: try Self.encode(LogoutRequest(memberId: victim.id, sessionId: victim.sessionId, accessToken: attacker.accessToken))) { target in
                try Self.encode(LogoutRequest(memberId: target.id, sessionId: target.sessionId, accessToken: target.accessToken))
            },
            Case(subject: Endpoints.logoutAll.subject,
                 without: try Self.encode(LogoutAllRequest(memberId: victim.id, accessToken: attacker.accessToken))) { target in
                try Self.encode(LogoutAllRequest(memberId: target.id, accessToken: target.accessToken))
            },
            Case(subject: Endpoints.listSessions.subject,
                 without: try Self.encode(ListSessionsRequest(memberId: victim.id, accessToken: attacker.accessToken))) { target in
                try Self.encode(ListSessionsRequest(memberId: target.id, accessToken: target.accessToken))
            },
            Case(subject: Endpoints.endSession.subject,
                 without: try Self.encode(EndSessionRequest(memberId: victim.id, sessionId: victim.sessionId, accessToken: attacker.accessToken))) { target in
                try Self.encode(EndSessionRequest(memberId: target.id, sessionId: target.sessionId, accessToken: target.accessToken))
            },
            Case(subject: Endpoints.accessTokenKeys.subject, without: nil) { _ in try Self.encode(AccessTokenKeysRequest()) },
            Case(subject: Endpoints.endedSessions.subject, without: nil) { _ in try Self.encode(EndedSessionsRequest()) },
            Case(subject: Endpoints.rotateSigningKeys.subject, without: nil) { _ in try Self.encode(RotateSigningKeysRequest()) },
            // The admin-api's calls: the sender is the proof, for a named admin; a change needs a reason. Without
            // them, each is refused as INVALID_REQUEST before it acts.
            Case(subject: Endpoints.adminFindMembers.subject,
                 without: try Self.encode(AdminFindMembersRequest(actor: AdminActor(admin: ""), provider: .google, subject: victim.googleSub))) { target in
                try Self.encode(AdminFindMembersRequest(actor: admin, provider: .google, subject: target.googleSub))
            },
            Case(subject: Endpoints.adminGetMember.subject,
                 without: try Self.encode(AdminMemberRequest(actor: AdminActor(admin: ""), memberId: victim.id))) { target in
                try Self.encode(AdminMemberRequest(actor: admin, memberId: target.id))
            },
            Case(subject: Endpoints.adminSuspendMember.subject,
                 without: try Self.encode(AdminMemberRequest(actor: AdminActor(admin: "matrix"), memberId: victim.id))) { target in
                try Self.encode(AdminMemberRequest(actor: admin, memberId: target.id))
            },
            Case(subject: Endpoints.adminUnsuspendMember.subject,
                 without: try Self.encode(AdminMemberRequest(actor: AdminActor(admin: "matrix"), memberId: victim.id))) { target in
                try Self.encode(AdminMemberRequest(actor: admin, memberId: target.id))
            },
            Case(subject: Endpoints.adminDeleteMember.subject,
                 without: try Self.encode(AdminMemberRequest(actor: AdminActor(admin: "matrix"), memberId: victim.id))) { target in
                try Self.encode(AdminMemberRequest(actor: admin, memberId: target.id))
            },
            Case(subject: Endpoints.adminListSessions.subject,
                 without: try Self.encode(AdminMemberRequest(actor: AdminActor(admin: ""), memberId: victim.id))) { target in
                try Self.encode(AdminMemberRequest(actor: admin, memberId: target.id))
            },
            Case(subject: Endpoints.adminEndSession.subject,
                 without: try Self.encode(AdminEndSessionRequest(actor: AdminActor(admin: "matrix"), sessionId: victim.sessionId))) { target in
                try Self.encode(AdminEndSessionRequest(actor: admin, sessionId: target.sessionId))
            },
            Case(subject: Endpoints.memberSuspension.subject, without: nil) { target in
                try Self.encode(MemberSuspensionRequest(memberId: target.id, suspended: true, generation: 1))
            },
        ]
    }

    /// What a call came to.
    enum Outcome: Equatable {
        /// nats-server refused to pass it on: no one answered.
        case refused
        /// The service answered with a failure of this code.
        case failed(ErrorCode)
        /// The service acted and answered.
        case answered
    }

    static func send(_ connection: NATSConnection, _ subject: String, _ payload: [UInt8], timeout: Duration = .seconds(5)) async -> Outcome {
        do {
            let reply = try await connection.request(subject, payload, timeout: timeout)
            let decoded = try MessageCoding.decode(ServiceReply<JSONValue>.self, from: reply.payload)
            return decoded.error.map { .failed($0.code) } ?? .answered
        } catch {
            return .refused
        }
    }

    /// The failures that mean the proof was missing or wrong: anything else is the service acting (a
    /// business refusal like `NOT_FOUND` or `LAST_IDENTITY` comes after the proof was accepted).
    static let proofRefusals: Set<ErrorCode> = [.unauthorized, .invalidProviderToken, .invalidRefreshToken, .invalidRequest]

    @Test("the table is the expected result: only a listed sender reaches a subject, and it acts only with the proof",
          arguments: BusIdentity.allCases)
    func matrix(_ identity: BusIdentity) async throws {
        let stack = try await Self.stack.running()
        let victim = try await Member.login(stack)
        let attacker = try await Member.login(stack)
        let before = try await stack.me(victim.accessToken)
        #expect(before.status == 200)
        let cases = try await Self.cases(stack, victim: victim, attacker: attacker)
        #expect(Set(cases.map(\.subject)) == Set(BusSubjects.requests.map(\.subject)), "a subject of the table has no case")

        let connection = try await NATSConnection.connect(
            .init(url: stack.natsURL, name: "matrix-\(identity.rawValue)", access: TestIdentities.access(for: identity)), logger: Self.logger)
        try await withResource(connection, close: { await $0.drainAndClose() }) { connection in
            var refusedSends = 0
            var refused: [(subject: String, payload: [UInt8])] = []
            for row in cases {
                let request = try #require(BusSubjects.requests.first { $0.subject == row.subject })
                guard request.sentBy.contains(identity) else {
                    // Sent together below: each waits for an answer that must never come.
                    refused += [(row.subject, try await row.with(victim))] + (row.without.map { [(row.subject, $0)] } ?? [])
                    continue
                }
                let with = await Self.send(connection, row.subject, try await row.with(try await Member.login(stack)))
                let without = if let payload = row.without { await Self.send(connection, row.subject, payload) } else { Outcome?.none }
                do {
                    switch with {
                    case .answered: break
                    case .failed(let code): #expect(!Self.proofRefusals.contains(code), "\(identity.rawValue) with proof on \(row.subject): \(code)")
                    case .refused: Issue.record("\(identity.rawValue) may send \(row.subject) but got no answer")
                    }
                    if let without {
                        guard case .failed(let code) = without, Self.proofRefusals.contains(code) else {
                            Issue.record("\(identity.rawValue) without proof on \(row.subject): \(without)")
                            continue
                        }
                    }
                }
            }
            let outcomes = await withTaskGroup(of: (String, Outcome).self) { group in
                for (subject, payload) in refused {
                    group.addTask { (subject, await Self.send(connection, subject, payload, timeout: .seconds(2))) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for (subject, outcome) in outcomes {
                #expect(outcome == .refused, "\(identity.rawValue) may not send \(subject), but got \(outcome)")
            }
            refusedSends = refused.count
            // Every refusal was nats-server's: a permissions violation for each send that no one answered.
            #expect(try await BusPermissionTests.violations(connection, reaching: refusedSends) == refusedSends)
        }

        // The victim is as before: the same profile, its one session, still signed in.
        let after = try await stack.me(victim.accessToken)
        #expect(after.status == 200)
        #expect(try after.data(MemberResponse.self) == before.data(MemberResponse.self), "\(identity.rawValue) changed the victim")
        let sessions = try await stack.get("/api/auth/sessions", bearer: victim.accessToken)
        #expect(try sessions.data([SessionResponse].self).map(\.sessionId) == [victim.sessionId], "\(identity.rawValue) touched the victim's sessions")
        #expect(try await stack.count("SELECT count(*)::text FROM issuer.sessions WHERE member_id = \(victim.id)") == 1,
                "\(identity.rawValue) started a session for the victim")
    }
}
