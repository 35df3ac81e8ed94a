import Contracts
import Foundation
import Testing
@testable import Gateway

/// The gateway's handler in process with the services stubbed, for a member's routes: the member ID it
/// passes on is the token's, and the member-service's and issuer's refusals reach the app as the contract
/// says (docs/api.md).
@Suite("The gateway's answers on a member's routes")
struct MemberAnswerTests {
    static let profile = MemberProfile(memberId: 7, email: "a@example.com", emailVerified: true, name: "A",
                                               identities: [LinkedIdentity(provider: .google, email: "a@example.com", emailVerified: true,
                                                                           linkedAt: Date(timeIntervalSince1970: 1_700_000_000))],
                                               createdAt: Date(timeIntervalSince1970: 1_700_000_000))

    @Test("/me asks for the token's member, with the token as its proof; a member deleted since is 401 UNAUTHORIZED")
    func me() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.answer(Endpoints.memberGet, with: Self.profile)
        let token = try gateway.token(sub: "7")
        let answer = await gateway.send("GET", "/api/members/me", bearer: token)
        #expect(answer.status == 200)
        #expect(try answer.data(MemberResponse.self).memberId == 7)
        #expect(services.requests(to: Endpoints.memberGet) == [MemberGetRequest(memberId: 7, accessToken: token)])
        services.refuse(Endpoints.memberGet, with: ServiceFailure(.notFound, "No such member."))
        let gone = await gateway.send("GET", "/api/members/me", bearer: try gateway.token(sub: "7"))
        gone.expectRefusal(401, "UNAUTHORIZED")
        #expect(gone.message == "The access token's member no longer exists.")
    }

    @Test("linking sends the provider token and the Bearer's token down the chain for the token's member; one owned by another member is 409 IDENTITY_IN_USE")
    func linkInUse() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.refuse(Endpoints.link, with: ServiceFailure(.identityInUse, "That identity belongs to another member."))
        let token = try gateway.token(sub: "7")
        let answer = await gateway.send("POST", "/api/members/me/identities", json: #"{"provider": "kakao", "idToken": "kt"}"#,
                                        bearer: token)
        answer.expectRefusal(409, "IDENTITY_IN_USE")
        #expect(services.requests(to: Endpoints.link)
                == [LinkRequest(verify: VerifyRequest(provider: .kakao, token: "kt"), memberId: 7, accessToken: token)])
    }

    @Test("linking with a provider token the verifier refuses is its refusal")
    func linkRefusedToken() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.refuse(Endpoints.link, with: ServiceFailure(.providerTokenExpired, "The provider token has expired."))
        let answer = await gateway.send("POST", "/api/members/me/identities", json: #"{"provider": "google", "idToken": "gt"}"#,
                                        bearer: try gateway.token())
        answer.expectRefusal(401, "PROVIDER_TOKEN_EXPIRED")
    }

    @Test("unlinking: the member's only identity is 409 LAST_IDENTITY, none of that provider 404 NOT_FOUND; no session is ended",
          arguments: [("LAST_IDENTITY", 409), ("NOT_FOUND", 404)])
    func unlinkRefused(_ code: String, _ status: Int) async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.refuse(Endpoints.memberUnlinkIdentity, with: ServiceFailure(ErrorCode(rawValue: code), "No."))
        let token = try gateway.token(sub: "12")
        await gateway.send("DELETE", "/api/members/me/identities/Apple", bearer: token).expectRefusal(status, code)
        #expect(services.requests(to: Endpoints.memberUnlinkIdentity) == [UnlinkIdentityRequest(memberId: 12, accessToken: token, provider: .apple)])
    }

    @Test("an unlink's answer names the sessions the member-service had the issuer end, whose tokens this gateway then refuses")
    func unlinkEndsSessions() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        let sid = UUID().uuidString.lowercased()
        services.answer(Endpoints.memberUnlinkIdentity, with: SessionsEnded(sessionIds: [sid]))
        #expect(await gateway.send("DELETE", "/api/members/me/identities/kakao", bearer: try gateway.token(sub: "12")).status == 204)
        // Not idempotent: sent once, never again after a lost answer.
        #expect(services.calls(to: Endpoints.memberUnlinkIdentity).map(\.retries) == [0])
        await gateway.send("GET", "/api/members/me", bearer: try gateway.token(sub: "12", sid: sid)).expectRefusal(401, "UNAUTHORIZED")
    }

    @Test("a session ID that is not a UUID is 404 NOT_FOUND and the issuer is not asked; one the issuer does not know is its 404")
    func deleteSession() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.refuse(Endpoints.endSession, with: ServiceFailure(.notFound, "No such session."))
        await gateway.send("DELETE", "/api/auth/sessions/not-a-uuid", bearer: try gateway.token()).expectRefusal(404, "NOT_FOUND")
        #expect(services.calls(to: Endpoints.endSession).isEmpty)
        let other = "0D3C8B8E-5A51-4C3E-9B7A-1F2B3C4D5E60"
        let token = try gateway.token(sub: "5")
        await gateway.send("DELETE", "/api/auth/sessions/\(other)", bearer: token).expectRefusal(404, "NOT_FOUND")
        #expect(services.requests(to: Endpoints.endSession) == [EndSessionRequest(memberId: 5, sessionId: other.lowercased(), accessToken: token)])
    }

    @Test("logout ends the token's session for the token's member, and the token is refused after it")
    func logout() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        let sid = UUID().uuidString.lowercased()
        services.answer(Endpoints.logout, with: SessionsEnded(sessionIds: [sid]))
        let token = try gateway.token(sub: "8", sid: sid)
        #expect(await gateway.send("POST", "/api/auth/logout", bearer: token).status == 204)
        #expect(services.requests(to: Endpoints.logout) == [LogoutRequest(memberId: 8, sessionId: sid, accessToken: token)])
        await gateway.send("POST", "/api/auth/logout", bearer: token).expectRefusal(401, "UNAUTHORIZED")
        #expect(services.calls(to: Endpoints.logout).map(\.retries) == [0])
    }
}

/// RFC 9470 at the edge: the gateway refuses linking, unlinking and deleting with an access token whose
/// sign-in is older than `REAUTHENTICATION_WINDOW` before it asks any service (or provider), with the
/// challenge; a member-service's refusal of the same kind gets the same challenge.
@Suite("The gateway's recent sign-in check")
struct RecentSignInAnswerTests {
    static let challenge = #"Bearer error="insufficient_user_authentication", max_age=300"#

    @Test("an old sign-in, or a token without auth_time, cannot link, unlink or delete; no service is asked; it still reads",
          arguments: [Int64?(301), nil])
    func oldSignIn(_ signedInAgo: Int64?) async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.answer(Endpoints.memberGet, with: MemberAnswerTests.profile)
        let token = try gateway.token(sub: "7", signedInAgo: signedInAgo)
        let answers = [
            await gateway.send("POST", "/api/members/me/identities", json: #"{"provider": "kakao", "idToken": "kt"}"#, bearer: token),
            await gateway.send("DELETE", "/api/members/me/identities/google", bearer: token),
            await gateway.send("DELETE", "/api/members/me", bearer: token),
        ]
        for answer in answers {
            answer.expectRefusal(401, "REAUTHENTICATION_REQUIRED")
            #expect(answer.headers["www-authenticate"] == Self.challenge)
        }
        #expect(services.requests(to: Endpoints.link).isEmpty)
        #expect(services.requests(to: Endpoints.memberUnlinkIdentity).isEmpty)
        #expect(services.requests(to: Endpoints.memberDelete).isEmpty)
        #expect(await gateway.send("GET", "/api/members/me", bearer: token).status == 200)
    }

    @Test("a sign-in within the window is handed on; the member-service's own refusal carries the challenge")
    func ownerRefusal() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.refuse(Endpoints.memberDelete, with: ServiceFailure(.reauthenticationRequired, "Sign in again."))
        let answer = await gateway.send("DELETE", "/api/members/me", bearer: try gateway.token(sub: "7", signedInAgo: 200))
        answer.expectRefusal(401, "REAUTHENTICATION_REQUIRED")
        #expect(answer.headers["www-authenticate"] == Self.challenge)
        #expect(services.requests(to: Endpoints.memberDelete).count == 1, "\(String(describing: answer.message))")
    }
}
