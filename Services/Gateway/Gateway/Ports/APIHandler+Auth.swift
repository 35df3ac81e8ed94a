import Contracts
import HTTPAPI
import HTTPServer
import Logging
import Messaging
import Rules

extension APIHandler {
    static let authRoutes: [Route] = [
        route("POST", "/api/auth/google-login") { handler, context throws(ServiceFailure) in try await handler.googleLogin(context) },
        route("POST", "/api/auth/apple-login") { handler, context throws(ServiceFailure) in try await handler.appleLogin(context) },
        route("POST", "/api/auth/naver-login") { handler, context throws(ServiceFailure) in try await handler.naverLogin(context) },
        route("POST", "/api/auth/kakao-login") { handler, context throws(ServiceFailure) in try await handler.kakaoLogin(context) },
        route("POST", "/api/auth/refresh") { handler, context throws(ServiceFailure) in try await handler.refresh(context) },
        route("POST", "/api/auth/nonce") { handler, context throws(ServiceFailure) in try await handler.nonce(context) },
    ]

    /// A server nonce for the device (`REQUIRE_SERVER_NONCE`): the token-verifier makes it and keeps nothing.
    /// Rate-limited like a login (every `/api/auth/` path is).
    func nonce(_ context: RequestContext) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(NonceBody.self, from: context.request)
        try Field.deviceId(body.deviceId)
        // Nothing is stored, so a lost reply may be asked again.
        let issued = try await services().call(Endpoints.issueNonce, NonceRequest(deviceId: body.deviceId),
                                               timeout: configuration.serviceTimeout, retries: 1)
        return .data(NonceResponse(nonce: issued.nonce, expiresIn: issued.expiresIn))
    }

    func googleLogin(_ context: RequestContext) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(GoogleLoginBody.self, from: context.request)
        let fields = try ProviderLogin.google(idToken: body.idToken, nonce: body.nonce, accessToken: body.accessToken)
        return try await login(fields, deviceId: body.deviceId, timezone: body.timezone, locale: body.locale,
                               client: clientContext(of: context, platform: body.platform, appVersion: body.appVersion))
    }

    func appleLogin(_ context: RequestContext) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(AppleLoginBody.self, from: context.request)
        let fields = try ProviderLogin.apple(identityToken: body.identityToken, rawNonce: body.rawNonce,
                                             authorizationCode: body.authorizationCode, fullName: body.fullName, email: body.email)
        return try await login(fields, deviceId: body.deviceId, timezone: body.timezone, locale: body.locale,
                               client: clientContext(of: context, platform: body.platform, appVersion: body.appVersion))
    }

    func naverLogin(_ context: RequestContext) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(NaverLoginBody.self, from: context.request)
        let fields = try ProviderLogin.naver(accessToken: body.accessToken)
        return try await login(fields, deviceId: body.deviceId, timezone: body.timezone, locale: body.locale,
                               client: clientContext(of: context, platform: body.platform, appVersion: body.appVersion))
    }

    func kakaoLogin(_ context: RequestContext) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(KakaoLoginBody.self, from: context.request)
        let fields = try ProviderLogin.kakao(idToken: body.idToken, nonce: body.nonce)
        return try await login(fields, deviceId: body.deviceId, timezone: body.timezone, locale: body.locale,
                               client: clientContext(of: context, platform: body.platform, appVersion: body.appVersion))
    }

    /// One request down the login chain: the token-verifier proves the provider token and hands the
    /// identity to the member-service, which finds or creates the member and hands it to the token-issuer,
    /// which starts the device's session and answers here. The gateway only hands the app's fields on: it
    /// cannot name a member or an identity itself. Retried once when a replica died mid-chain: both attempts
    /// carry the login's `attemptKey`, so the later one finds the member the earlier one found or created
    /// and answers as it did (a new member stays new, and no second login event is written; a member-service
    /// of a release before answers it as a login of an existing member), and gets the session the earlier
    /// one started instead of replacing it: the app ends up with exactly one live session, whose tokens it
    /// receives. Not with a server
    /// nonce: the first attempt may have spent it, and the retry would be refused as a replay (`nonceUsed`)
    /// though the app replayed nothing; the app gets 504 `TIMEOUT` and signs in again with a new nonce.
    private func login(_ fields: ProviderLogin, deviceId: String, timezone: String?, locale: String?,
                       client: ClientContext?) async throws(ServiceFailure) -> HTTPResponse {
        try Field.deviceId(deviceId)
        try Field.optional(timezone, "timezone", maxBytes: FieldLimits.timezone)
        try Field.optional(locale, "locale", maxBytes: FieldLimits.locale)
        let tokens = try await services().call(
            Endpoints.login,
            LoginRequest(verify: fields.verify, deviceId: deviceId, name: fields.name, email: fields.email, timezone: timezone, locale: locale,
                         attemptKey: RequestID.generate().value, client: client),
            timeout: configuration.serviceTimeout, retries: Self.retries(nonce: fields.verify.nonce))
        accessTokens.rememberIssued(tokens)
        return .data(LoginResponse(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                   expiresIn: tokens.expiresIn, memberId: tokens.memberId,
                                   isExistingMember: tokens.isExistingMember ?? false))
    }

    /// Where a login comes from and on what, for its session and the audit trail: the client's address
    /// (`TRUSTED_PROXIES`), and the platform and app version the body sent (400 naming a field that is too long
    /// or holds control characters, like every field) or, where it sent none, what the `User-Agent` names
    /// (cleaned and cut, never refused: ``ClientRules``).
    private func clientContext(of context: RequestContext, platform: String?, appVersion: String?) throws(ServiceFailure) -> ClientContext? {
        try Field.optional(platform, "platform", maxBytes: FieldLimits.platform)
        try Field.optional(appVersion, "appVersion", maxBytes: FieldLimits.appVersion)
        let described = platform != nil && appVersion != nil
            ? (platform: nil, appVersion: nil) : ClientRules.describe(userAgent: context.request.header("user-agent"))
        let client = ClientContext(address: ClientAddress.of(context.request, trusting: configuration.trustedProxies),
                                   platform: platform ?? described.platform, appVersion: appVersion ?? described.appVersion)
        return ClientRules.cleaned(client)
    }

    /// A login's or link's retries after a lost reply: one, none with a server nonce, which is good once.
    static func retries(nonce: String?) -> Int {
        nonce.map(IssuedNonce.looksIssued) == true ? 0 : 1
    }

    func refresh(_ context: RequestContext) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(RefreshBody.self, from: context.request)
        try Field.refresh(token: body.refreshToken, deviceId: body.deviceId)
        // A retried refresh whose first attempt did rotate presents a rotated token: inside the
        // reuse grace window that yields the same successor, after it the session would end.
        // So retry only when the window outlasts the latest a resend goes out: the first attempt's
        // timeout, then the wait for a lost connection to come back.
        let latestResend = configuration.serviceTimeout + ServiceClient.failoverPatience
        let retries = configuration.refreshReuseGrace > latestResend ? 1 : 0
        let tokens = try await services().call(
            Endpoints.refreshTokens, RefreshTokensRequest(refreshToken: body.refreshToken, deviceId: body.deviceId),
            timeout: configuration.serviceTimeout, retries: retries)
        accessTokens.rememberIssued(tokens)
        return .data(LoginResponse(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                   expiresIn: tokens.expiresIn, memberId: tokens.memberId, isExistingMember: true))
    }
}
