import Contracts
import Foundation
import ServiceStubs
import Testing
@testable import Gateway

/// The gateway's handler in process with the services stubbed: what it asks them for a login, a refresh
/// and an Apple notification, and how their refusals, their absence and their silence reach the app
/// (status, code, `Cache-Control: no-store`, the request ID).
@Suite("The gateway's answers to what the services answer")
struct ServiceAnswerTests {
    private static let googleLogin = #"{"idToken": "google-id-token", "nonce": "n-1", "deviceId": "device-1", "timezone": "Asia/Seoul"}"#
    /// Services that let a Google login of member 42 through: the chain's last hop answers the tokens.
    private static func loggingIn(_ gateway: InProcessGateway) throws -> StubServices {
        let services = try #require(gateway.services)
        services.answer(Endpoints.login, with: TokenPair(accessToken: try gateway.token(sub: "42"), refreshToken: "refresh-1",
                                                         expiresIn: 600, memberId: 42, sessionId: "s-1", isExistingMember: true))
        return services
    }

    @Test("a login is one request down the chain: the provider's token and the body's fields, with the request's ID; no member or identity of the gateway's")
    func loginPassesOn() async throws {
        let gateway = try InProcessGateway()
        let services = try Self.loggingIn(gateway)
        let answer = await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin)
        #expect(answer.status == 200)
        let login = try answer.data(LoginResponse.self)
        #expect(login.memberId == 42 && login.isExistingMember && login.refreshToken == "refresh-1")
        let sent = services.requests(to: Endpoints.login)
        // The login's key: a fresh UUID, the same in any attempt resent (the issuer derives the session's ID from it).
        let key = try #require(sent.first?.attemptKey)
        #expect(UUID(uuidString: key) != nil)
        #expect(sent == [LoginRequest(verify: VerifyRequest(provider: .google, token: "google-id-token", nonce: "n-1"), deviceId: "device-1",
                                      timezone: "Asia/Seoul", attemptKey: key)])
        #expect(services.calls(to: Endpoints.login).map(\.requestID) == [answer.sentRequestID])
        _ = await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin)
        #expect(services.requests(to: Endpoints.login).last?.attemptKey != key, "each login a key of its own")
    }

    @Test("a login hands on where it came from and on what: the body's platform and app version, else the User-Agent's; too long a field is a 400 that sends nothing")
    func loginPassesClientOn() async throws {
        let gateway = try InProcessGateway()
        let services = try Self.loggingIn(gateway)
        let described = #"{"idToken": "t", "deviceId": "d", "platform": "iOS 18.1", "appVersion": "MyApp 2.3.1"}"#
        #expect(await gateway.send("POST", "/api/auth/google-login", json: described).status == 200)
        let userAgent = "MyApp/9.0 (com.example.myapp; build:1; iOS 17.4.1) Alamofire/5.8.0"
        let bare = #"{"idToken": "t", "deviceId": "d", "appVersion": "Sent 1.0"}"#
        #expect(await gateway.send("POST", "/api/auth/google-login", headers: ["User-Agent": userAgent], json: bare).status == 200)
        let clients = services.requests(to: Endpoints.login).map(\.client)
        #expect(clients.count == 2)
        #expect(clients.first??.platform == "iOS 18.1" && clients.first??.appVersion == "MyApp 2.3.1")
        #expect(clients.last??.platform == "iOS 17.4.1" && clients.last??.appVersion == "Sent 1.0", "the body's field wins, the header fills the rest")
        let tooLong = #"{"idToken": "t", "deviceId": "d", "platform": "\#(String(repeating: "x", count: FieldLimits.platform + 1))"}"#
        let refused = await gateway.send("POST", "/api/auth/google-login", json: tooLong)
        #expect(refused.status == 400)
        #expect(services.requests(to: Endpoints.login).count == 2, "nothing was sent for the refused login")
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
        #expect(services.requests(to: Endpoints.login).map(\.verify) == [expected])
    }

    @Test("the verifier's refusal of a provider token is the login's answer, with its message", arguments: [
        ("INVALID_PROVIDER_TOKEN", 401), ("PROVIDER_TOKEN_EXPIRED", 401), ("NONCE_MISMATCH", 401), ("PROVIDER_DISABLED", 404),
        ("INVALID_REQUEST", 400), ("PROVIDER_UNAVAILABLE", 502),
    ])
    func verifierRefusals(_ code: String, _ status: Int) async throws {
        let gateway = try InProcessGateway()
        let services = try Self.loggingIn(gateway)
        services.refuse(Endpoints.login, with: ServiceFailure(ErrorCode(rawValue: code), "The verifier says no."))
        let answer = await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin)
        answer.expectRefusal(status, code)
        #expect(answer.message == "The verifier says no.")
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
        services.refuse(Endpoints.login, with: ServiceFailure(.timeout, "A service did not answer in time; try again."))
        await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin).expectRefusal(504, "TIMEOUT")
        services.refuse(Endpoints.login, with: .unavailable)
        let unavailable = await gateway.send("POST", "/api/auth/google-login", json: Self.googleLogin)
        unavailable.expectRefusal(503, "SERVICE_UNAVAILABLE")
        #expect(unavailable.headers["retry-after"] == "1")
    }

    @Test("an Apple notification the verifier refuses is 401 INVALID_PROVIDER_TOKEN; the sessions one ended are refused at once")
    func appleNotification() async throws {
        let gateway = try InProcessGateway()
        let services = try #require(gateway.services)
        services.refuse(Endpoints.verifyAppleNotification, with: ServiceFailure(.invalidProviderToken, "The notification does not verify."))
        await gateway.send("POST", "/api/auth/apple/notifications", json: #"{"payload": "jws"}"#).expectRefusal(401, "INVALID_PROVIDER_TOKEN")
        #expect(services.requests(to: Endpoints.verifyAppleNotification) == [AppleNotificationRequest(payload: "jws")])
        services.refuse(Endpoints.verifyAppleNotification, with: ServiceFailure(.providerDisabled, "Apple is not configured."))
        await gateway.send("POST", "/api/auth/apple/notifications", json: #"{"payload": "jws"}"#).expectRefusal(404, "PROVIDER_DISABLED")
        // The chain's answer names the sessions the member-service had the issuer end: their tokens are refused here at once.
        let sid = "0d3c8b8e-5a51-4c3e-9b7a-1f2b3c4d5e61"
        services.answer(Endpoints.listSessions, with: SessionList(sessions: []))
        #expect(await gateway.send("GET", "/api/auth/sessions", bearer: try gateway.token(sub: "3", sid: sid)).status == 200)
        services.answer(Endpoints.verifyAppleNotification,
                        with: AppleNotificationOutcome(memberId: 3, identityEnded: true, memberDeleted: false,
                                                       sessionsEnded: SessionsEnded(sessionIds: [sid])))
        #expect(await gateway.send("POST", "/api/auth/apple/notifications", json: #"{"payload": "jws"}"#).status == 200)
        await gateway.send("GET", "/api/auth/sessions", bearer: try gateway.token(sub: "3", sid: sid)).expectRefusal(401, "UNAUTHORIZED")
    }
}
