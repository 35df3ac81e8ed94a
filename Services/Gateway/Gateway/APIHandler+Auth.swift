import Contracts
import HTTPServer

extension APIHandler {
    static let authRoutes: [Route] = [
        route("POST", "/api/auth/google-login") { handler, request, _ throws(ServiceFailure) in try await handler.googleLogin(request) },
        route("POST", "/api/auth/apple-login") { handler, request, _ throws(ServiceFailure) in try await handler.appleLogin(request) },
        route("POST", "/api/auth/naver-login") { handler, request, _ throws(ServiceFailure) in try await handler.naverLogin(request) },
        route("POST", "/api/auth/kakao-login") { handler, request, _ throws(ServiceFailure) in try await handler.kakaoLogin(request) },
        route("POST", "/api/auth/refresh") { handler, request, _ throws(ServiceFailure) in try await handler.refresh(request) },
    ]

    /// Limits on fields the gateway sees before any service does.
    enum Limits {
        static let token = 16_384
        static let deviceId = 255
        static let nonce = 512
        static let timezone = 64
        static let locale = 35
        static let name = 200
        static let email = 320
    }

    func googleLogin(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(GoogleLoginBody.self, from: request)
        try Field.required(body.idToken, "idToken", maxBytes: Limits.token)
        try Field.optional(body.nonce, "nonce", maxBytes: Limits.nonce)
        try Field.optional(body.accessToken, "accessToken", maxBytes: Limits.token)
        return try await login(VerifyRequest(provider: .google, token: body.idToken, nonce: body.nonce),
                               deviceId: body.deviceId, timezone: body.timezone, locale: body.locale)
    }

    func appleLogin(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(AppleLoginBody.self, from: request)
        try Field.required(body.identityToken, "identityToken", maxBytes: Limits.token)
        try Field.optional(body.rawNonce, "rawNonce", maxBytes: Limits.nonce)
        try Field.optional(body.authorizationCode, "authorizationCode", maxBytes: Limits.token)
        try Field.optional(body.email, "email", maxBytes: Limits.email)
        try Field.optional(body.fullName?.givenName, "fullName.givenName", maxBytes: Limits.name)
        try Field.optional(body.fullName?.familyName, "fullName.familyName", maxBytes: Limits.name)
        return try await login(VerifyRequest(provider: .apple, token: body.identityToken, nonce: body.rawNonce,
                                             authorizationCode: body.authorizationCode),
                               deviceId: body.deviceId, timezone: body.timezone, locale: body.locale,
                               name: body.fullName?.formatted, email: body.email)
    }

    func naverLogin(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(NaverLoginBody.self, from: request)
        try Field.required(body.accessToken, "accessToken", maxBytes: Limits.token)
        return try await login(VerifyRequest(provider: .naver, token: body.accessToken),
                               deviceId: body.deviceId, timezone: body.timezone, locale: body.locale)
    }

    func kakaoLogin(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(KakaoLoginBody.self, from: request)
        try Field.required(body.idToken, "idToken", maxBytes: Limits.token)
        try Field.optional(body.nonce, "nonce", maxBytes: Limits.nonce)
        return try await login(VerifyRequest(provider: .kakao, token: body.idToken, nonce: body.nonce),
                               deviceId: body.deviceId, timezone: body.timezone, locale: body.locale)
    }

    /// Verify, find or create the member, start the device's session: each retried once when a
    /// replica died mid-request. All three are safe to repeat: verifying and finding change
    /// nothing, and starting the session again only replaces that device's session once more,
    /// so the app ends up with exactly one live session, whose tokens it receives.
    private func login(_ verify: VerifyRequest, deviceId: String, timezone: String?, locale: String?,
                       name: String? = nil, email: String? = nil) async throws(ServiceFailure) -> HTTPResponse {
        try Field.required(deviceId, "deviceId", maxBytes: Limits.deviceId)
        try Field.optional(timezone, "timezone", maxBytes: Limits.timezone)
        try Field.optional(locale, "locale", maxBytes: Limits.locale)
        let services = try services()
        let timeout = configuration.serviceTimeout
        let identity = try await services.call(Endpoints.verify, verify, timeout: timeout, retries: 1)
        let member = try await services.call(
            Endpoints.memberLogin,
            MemberLoginRequest(identity: identity, name: name, email: email, timezone: timezone, locale: locale),
            timeout: timeout, retries: 1)
        let tokens = try await services.call(
            Endpoints.issueTokens, IssueTokensRequest(memberId: member.memberId, deviceId: deviceId, provider: verify.provider),
            timeout: timeout, retries: 1)
        accessTokens.rememberIssued(tokens.accessToken)
        return .data(LoginResponse(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                   expiresIn: tokens.expiresIn, memberId: member.memberId,
                                   isExistingMember: member.isExistingMember))
    }

    func refresh(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(RefreshBody.self, from: request)
        try Field.required(body.refreshToken, "refreshToken", maxBytes: 512)
        try Field.optional(body.deviceId, "deviceId", maxBytes: Limits.deviceId)
        // A retried refresh whose first attempt did rotate presents a rotated token: inside the
        // reuse grace window that yields the same successor, after it the session would end.
        // So retry only when the window outlasts the wait for the first attempt.
        let retries = configuration.refreshReuseGrace > configuration.serviceTimeout ? 1 : 0
        let tokens = try await services().call(
            Endpoints.refreshTokens, RefreshTokensRequest(refreshToken: body.refreshToken, deviceId: body.deviceId),
            timeout: configuration.serviceTimeout, retries: retries)
        accessTokens.rememberIssued(tokens.accessToken)
        return .data(LoginResponse(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                   expiresIn: tokens.expiresIn, memberId: tokens.memberId, isExistingMember: true))
    }
}
