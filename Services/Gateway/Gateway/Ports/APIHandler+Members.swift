import Contracts
import HTTPServer

extension APIHandler {
    static let memberRoutes: [Route] = [
        authenticated("GET", "/api/members/me") { handler, _, member throws(ServiceFailure) in try await handler.me(member) },
        authenticated("PATCH", "/api/members/me") { handler, context, member throws(ServiceFailure) in
            try await handler.updateMe(context, member)
        },
        authenticated("DELETE", "/api/members/me") { handler, _, member throws(ServiceFailure) in try await handler.deleteMe(member) },
        authenticated("POST", "/api/members/me/identities") { handler, context, member throws(ServiceFailure) in
            try await handler.linkIdentity(context, member)
        },
        authenticated("DELETE", "/api/members/me/identities/{provider}") { handler, context, member throws(ServiceFailure) in
            try await handler.unlinkIdentity(member, provider: context.parameter("provider"))
        },
    ]

    func me(_ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        let profile: MemberProfile
        do {
            profile = try await services().call(Endpoints.memberGet, MemberGetRequest(memberId: member.id),
                                                timeout: configuration.serviceTimeout, retries: 1)
        } catch where error.code == .notFound {
            // The member was deleted after the token was issued.
            throw ServiceFailure(.unauthorized, "The access token's member no longer exists.")
        }
        return .data(MemberResponse(profile))
    }

    /// Changes the member's name, time zone or locale (each optional); answers the profile as `GET` would.
    func updateMe(_ context: RequestContext, _ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(MemberUpdateBody.self, from: context.request)
        try ProfileRules.check(name: body.name, timezone: body.timezone, locale: body.locale)
        // Setting the same values again changes nothing, so a lost reply may be retried.
        let profile = try await services().call(
            Endpoints.memberUpdate, MemberUpdateRequest(memberId: member.id, name: body.name, timezone: body.timezone, locale: body.locale),
            timeout: configuration.serviceTimeout, retries: 1)
        return .data(MemberResponse(profile))
    }

    /// Account deletion; a repeated request (the member is gone already) is answered the same.
    /// Answered once the issuer ended the member's sessions and refuses new ones, so no session of
    /// the member works after the 204, not even one a racing login started.
    func deleteMe(_ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        _ = try await services().call(Endpoints.memberDelete, MemberDeleteRequest(memberId: member.id),
                                      timeout: configuration.serviceTimeout, retries: 1)
        try await memberDeleted(member.id)
        return .noContent
    }

    /// Verifies the provider's login fields like a login would, then links that identity to the Bearer's member.
    func linkIdentity(_ context: RequestContext, _ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(LinkIdentityBody.self, from: context.request)
        guard body.provider.utf8.count <= 16, let provider = Provider(name: body.provider) else {
            throw ServiceFailure.invalidRequest("provider must be one of google, apple, naver, kakao.")
        }
        let fields = try ProviderLogin.linking(provider, body)
        let services = try services()
        let identity = try await services.call(Endpoints.verify, fields.verify, timeout: configuration.serviceTimeout, retries: 1)
        // Linking is idempotent (the same identity again is a no-op), so a lost reply may be retried.
        let profile = try await services.call(
            Endpoints.memberLinkIdentity, LinkIdentityRequest(memberId: member.id, identity: identity, name: fields.name, email: fields.email),
            timeout: configuration.serviceTimeout, retries: 1)
        return .data(MemberResponse(profile))
    }

    func unlinkIdentity(_ member: AuthenticatedMember, provider name: String) async throws(ServiceFailure) -> HTTPResponse {
        guard name.utf8.count <= 16, let provider = Provider(name: name) else {
            throw ServiceFailure.invalidRequest("The provider in the path must be one of google, apple, naver, kakao.")
        }
        _ = try await services().call(Endpoints.memberUnlinkIdentity, UnlinkIdentityRequest(memberId: member.id, provider: provider),
                                      timeout: configuration.serviceTimeout, retries: 0)
        try await identityEnded(member.id, provider)
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
}
