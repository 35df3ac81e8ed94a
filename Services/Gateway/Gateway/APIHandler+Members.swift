import Contracts
import HTTPServer

extension APIHandler {
    static let memberRoutes: [Route] = [
        route("GET", "/api/members/me") { handler, request, _ throws(ServiceFailure) in try await handler.me(request) },
        route("DELETE", "/api/members/me") { handler, request, _ throws(ServiceFailure) in try await handler.deleteMe(request) },
        route("POST", "/api/members/me/identities") { handler, request, _ throws(ServiceFailure) in
            try await handler.linkIdentity(request)
        },
        route("DELETE", "/api/members/me/identities/{provider}") { handler, request, parameters throws(ServiceFailure) in
            try await handler.unlinkIdentity(request, provider: parameters["provider"] ?? "")
        },
    ]

    func me(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let memberId = try await authenticatedMember(request)
        let profile: MemberProfile
        do {
            profile = try await services().call(Endpoints.memberGet, MemberGetRequest(memberId: memberId),
                                                timeout: configuration.serviceTimeout, retries: 1)
        } catch where error.code == .notFound {
            // The member was deleted after the token was issued.
            throw ServiceFailure(.unauthorized, "The access token's member no longer exists.")
        }
        return .data(MemberResponse(profile))
    }

    /// Account deletion; a repeated request (the member is gone already) is answered the same.
    /// Answered once the issuer ended the member's sessions and refuses new ones, so no session of
    /// the member works after the 204, not even one a racing login started.
    func deleteMe(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let memberId = try await authenticatedMember(request)
        _ = try await services().call(Endpoints.memberDelete, MemberDeleteRequest(memberId: memberId),
                                      timeout: configuration.serviceTimeout, retries: 1)
        try await memberDeleted(memberId)
        return .noContent
    }

    /// Verifies the provider's login fields like a login would, then links that identity to the Bearer's member.
    func linkIdentity(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let memberId = try await authenticatedMember(request)
        let body = try RequestBody.decode(LinkIdentityBody.self, from: request)
        guard body.provider.utf8.count <= 16, let provider = Provider(name: body.provider) else {
            throw ServiceFailure.invalidRequest("provider must be one of google, apple, naver, kakao.")
        }
        let verify: VerifyRequest
        var name: String?
        var email: String?
        switch provider {
        case .google, .kakao:
            let idToken = try Self.present(body.idToken, "idToken", for: provider)
            try Field.required(idToken, "idToken", maxBytes: Limits.token)
            try Field.optional(body.nonce, "nonce", maxBytes: Limits.nonce)
            verify = VerifyRequest(provider: provider, token: idToken, nonce: body.nonce)
        case .apple:
            let identityToken = try Self.present(body.identityToken, "identityToken", for: provider)
            try Field.required(identityToken, "identityToken", maxBytes: Limits.token)
            try Field.optional(body.rawNonce, "rawNonce", maxBytes: Limits.nonce)
            try Field.optional(body.authorizationCode, "authorizationCode", maxBytes: Limits.token)
            try Field.optional(body.email, "email", maxBytes: Limits.email)
            try Field.optional(body.fullName?.givenName, "fullName.givenName", maxBytes: Limits.name)
            try Field.optional(body.fullName?.familyName, "fullName.familyName", maxBytes: Limits.name)
            verify = VerifyRequest(provider: .apple, token: identityToken, nonce: body.rawNonce,
                                   authorizationCode: body.authorizationCode)
            name = body.fullName?.formatted
            email = body.email
        case .naver:
            let accessToken = try Self.present(body.accessToken, "accessToken", for: provider)
            try Field.required(accessToken, "accessToken", maxBytes: Limits.token)
            verify = VerifyRequest(provider: .naver, token: accessToken)
        }
        let services = try services()
        let identity = try await services.call(Endpoints.verify, verify, timeout: configuration.serviceTimeout, retries: 1)
        // Linking is idempotent (the same identity again is a no-op), so a lost reply may be retried.
        let profile = try await services.call(
            Endpoints.memberLinkIdentity, LinkIdentityRequest(memberId: memberId, identity: identity, name: name, email: email),
            timeout: configuration.serviceTimeout, retries: 1)
        return .data(MemberResponse(profile))
    }

    func unlinkIdentity(_ request: HTTPRequest, provider name: String) async throws(ServiceFailure) -> HTTPResponse {
        let memberId = try await authenticatedMember(request)
        guard name.utf8.count <= 16, let provider = Provider(name: name) else {
            throw ServiceFailure.invalidRequest("The provider in the path must be one of google, apple, naver, kakao.")
        }
        _ = try await services().call(Endpoints.memberUnlinkIdentity, UnlinkIdentityRequest(memberId: memberId, provider: provider),
                                      timeout: configuration.serviceTimeout)
        try await identityEnded(memberId, provider)
        return .noContent
    }

    /// Tells the issuer that the member was deleted: its sessions end, none starts again; this
    /// gateway refuses their access tokens at once (the others on `session.ended`). Idempotent.
    func memberDeleted(_ memberId: Int64) async throws(ServiceFailure) {
        let ended = try await services().call(Endpoints.endDeletedMember, DeletedMemberRequest(memberId: memberId),
                                              timeout: configuration.serviceTimeout, retries: 1)
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
    }

    /// Ends the member's sessions opened through its identity of `provider`, which is gone. Idempotent.
    func identityEnded(_ memberId: Int64, _ provider: Provider) async throws(ServiceFailure) {
        let ended = try await services().call(Endpoints.endIdentitySessions,
                                              EndIdentitySessionsRequest(memberId: memberId, provider: provider),
                                              timeout: configuration.serviceTimeout, retries: 1)
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
    }

    /// The member ID of the request's Bearer token, or 401.
    private func authenticatedMember(_ request: HTTPRequest) async throws(ServiceFailure) -> Int64 {
        let claims = try await authenticate(request)
        guard let memberId = Int64(claims.sub) else { throw ServiceFailure(.unauthorized, "The access token is not valid.") }
        return memberId
    }

    /// A login field the provider needs, or 400 naming it.
    private static func present(_ value: String?, _ field: String, for provider: Provider) throws(ServiceFailure) -> String {
        guard let value else {
            throw ServiceFailure.invalidRequest("\(field) is required for provider \(provider.rawValue.lowercased()).")
        }
        return value
    }
}
