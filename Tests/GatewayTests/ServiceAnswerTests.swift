import Contracts
import Testing
@testable import Gateway

/// The gateway's handler in process with the services stubbed: what it asks them for a login, a refresh
/// and an Apple notification, and how their refusals, their absence and their silence reach the app
/// (status, code, `Cache-Control: no-store`, the request ID).
@Suite("The gateway's answers to what the services answer")
struct ServiceAnswerTests {
    private static let googleLogin = #"{"idToken": "google-id-token", "nonce": "n-1", "deviceId": "device-1", "timezone": "Asia/Seoul"}"#
    private static let identity = VerifiedIdentity(provider: .google, subject: "g-1", email: "a@example.com", emailVerified: true)

    /// Services that let a Google login of member 42 through.
    private static func loggingIn(_ gateway: InProcessGateway) throws -> StubServices {
        let services = try #require(gateway.services)
        services.answer(Endpoints.verify, with: identity)
        services.answer(Endpoints.memberLogin, with: MemberLoginReply(memberId: 42, isExistingMember: true))
        services.answer(Endpoints.issueTokens, with: TokenPair(accessToken: try gateway.token(sub: "42"), refreshToken: "refresh-1",
                                                               expiresIn: 600, memberId: 42, sessionId: "s-1"))
        return services
    }

    @Test("a login sends the provider's token to the verifier, its identity to the member-service, the member and the body's device to the issuer, each with the request's ID")
    func loginPassesOn() async throws {
        let gateway = try InProcessGateway()
        let services = try Self.loggingIn(gateway)
        let answer = await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin)
        #expect(answer.status == 200)
        let login = try answer.data(LoginResponse.self)
        #expect(login.memberId == 42 && login.isExistingMember && login.refreshToken == "refresh-1")
        #expect(services.requests(to: Endpoints.verify) == [VerifyRequest(provider: .google, token: "google-id-token", nonce: "n-1")])
        let memberLogin = services.requests(to: Endpoints.memberLogin)
        #expect(memberLogin.map(\.identity) == [Self.identity] && memberLogin.first?.timezone == "Asia/Seoul")
        #expect(services.requests(to: Endpoints.issueTokens) == [IssueTokensRequest(memberId: 42, deviceId: "device-1", provider: .google)])
        let ids = services.calls(to: Endpoints.verify) + services.calls(to: Endpoints.memberLogin) + services.calls(to: Endpoints.issueTokens)
        #expect(ids.map(\.requestID) == Array(repeating: answer.sentRequestID, count: 3))
    }

    @Test("each provider's login asks the verifier for that provider", arguments: [
        ("apple", #"{"identityToken": "t", "rawNonce": "r", "authorizationCode": "c", "deviceId": "d"}"#,
         VerifyRequest(provider: .apple, token: "t", nonce: "r", authorizationCode: "c")),
        ("naver", #"{"accessToken": "t", "deviceId": "d"}"#, VerifyRequest(provider: .naver, token: "t")),
        ("kakao", #"{"idToken": "t", "nonce": "n", "deviceId": "d"}"#, VerifyRequest(provider: .kakao, token: "t", nonce: "n")),
    ])
    func providers(_ provider: String, _ json: String, _ expected: VerifyRequest) async throws {
        let gateway = try InProcessGateway()
        let services = try Self.loggingIn(gateway)
        #expect(await gateway.send("POST", "/api/auth/\(provider)-login", json: json).status == 200)
        #expect(services.requests(to: Endpoints.verify) == [expected])
        #expect(services.requests(to: Endpoints.issueTokens).map(\.provider) == [expected.provider])
    }

    @Test("the verifier's refusal of a provider token is the login's answer, with its message, and nobody else is asked", arguments: [
        ("INVALID_PROVIDER_TOKEN", 401), ("PROVIDER_TOKEN_EXPIRED", 401), ("NONCE_MISMATCH", 401), ("PROVIDER_DISABLED", 404),
        ("INVALID_REQUEST", 400), ("PROVIDER_UNAVAILABLE", 502),
    ])
    func verifierRefusals(_ code: String, _ status: Int) async throws {
        let gateway = try InProcessGateway()
        let services = try Self.loggingIn(gateway)
        services.refuse(Endpoints.verify, with: ServiceFailure(ErrorCode(rawValue: code), "The verifier says no."))
        let answer = await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin)
        answer.expectRefusal(status, code)
        #expect(answer.message == "The verifier says no.")
        #expect(services.requests(to: Endpoints.memberLogin).isEmpty && services.requests(to: Endpoints.issueTokens).isEmpty)
    }

    @Test("a refused refresh token is 401 with the issuer's code; the token and the device go to the issuer as sent",
          arguments: ["INVALID_REFRESH_TOKEN", "REFRESH_TOKEN_REUSED"])
    func refreshRefusals(_ code: String) async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.refuse(Endpoints.refreshTokens, with: ServiceFailure(ErrorCode(rawValue: code), "No."))
        let answer = await gateway.send("POST", "/api/auth/refresh", json: #"{"refreshToken": "refresh-9", "deviceId": "device-9"}"#)
        answer.expectRefusal(401, code)
        #expect(services.requests(to: Endpoints.refreshTokens) == [RefreshTokensRequest(refreshToken: "refresh-9", deviceId: "device-9")])
    }

    @Test("a refresh the issuer rotates answers the new pair for the issuer's member")
    func refreshes() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.answer(Endpoints.refreshTokens, with: TokenPair(accessToken: try gateway.token(sub: "9"), refreshToken: "refresh-10",
                                                                 expiresIn: 600, memberId: 9, sessionId: "s-9"))
        let answer = await gateway.send("POST", "/api/auth/refresh", json: #"{"refreshToken": "refresh-9"}"#)
        let pair = try answer.data(LoginResponse.self)
        #expect(answer.status == 200 && pair.memberId == 9 && pair.refreshToken == "refresh-10")
        #expect(services.requests(to: Endpoints.refreshTokens) == [RefreshTokensRequest(refreshToken: "refresh-9")])
    }

    @Test("with no services connected, every route that needs one is 503 with Retry-After", arguments: [
        ("POST", "/api/auth/google-login", Self.googleLogin), ("POST", "/api/auth/refresh", #"{"refreshToken": "r"}"#),
        ("POST", "/api/auth/apple/notifications", #"{"payload": "p"}"#),
    ])
    func noServices(_ method: String, _ path: String, _ json: String) async throws {
        let answer = await (try InProcessGateway(connected: false)).send(method, path, json: json)
        answer.expectRefusal(503, "SERVICE_UNAVAILABLE")
        #expect(answer.headers["retry-after"] == "1")
    }

    @Test("a service with no responder is 503, one that does not answer in time 504")
    func transport() async throws {
        let gateway = try InProcessGateway()
        let services = try Self.loggingIn(gateway)
        services.refuse(Endpoints.memberLogin, with: ServiceFailure(.timeout, "A service did not answer in time; try again."))
        await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin).expectRefusal(504, "TIMEOUT")
        #expect(services.requests(to: Endpoints.issueTokens).isEmpty)
        services.refuse(Endpoints.memberLogin, with: .unavailable)
        let unavailable = await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin)
        unavailable.expectRefusal(503, "SERVICE_UNAVAILABLE")
        #expect(unavailable.headers["retry-after"] == "1")
    }

    @Test("an Apple notification the verifier refuses is 401 INVALID_PROVIDER_TOKEN, and the member-service is not asked")
    func appleNotification() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.refuse(Endpoints.verifyAppleNotification, with: ServiceFailure(.invalidProviderToken, "The notification does not verify."))
        await gateway.send("POST", "/api/auth/apple/notifications", json: #"{"payload": "jws"}"#).expectRefusal(401, "INVALID_PROVIDER_TOKEN")
        #expect(services.requests(to: Endpoints.verifyAppleNotification) == [AppleNotificationRequest(payload: "jws")])
        #expect(services.calls(to: Endpoints.memberAppleNotification).isEmpty)
        services.refuse(Endpoints.verifyAppleNotification, with: ServiceFailure(.providerDisabled, "Apple is not configured."))
        await gateway.send("POST", "/api/auth/apple/notifications", json: #"{"payload": "jws"}"#).expectRefusal(404, "PROVIDER_DISABLED")
    }
}
