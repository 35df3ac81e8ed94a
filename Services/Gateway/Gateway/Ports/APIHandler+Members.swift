import Contracts
import Foundation
import HTTPAPI
import HTTPServer
import Rules

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
            profile = try await services().call(Endpoints.memberGet, MemberGetRequest(memberId: member.id, accessToken: member.token),
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
            Endpoints.memberUpdate,
            MemberUpdateRequest(memberId: member.id, accessToken: member.token, name: body.name, timezone: body.timezone, locale: body.locale),
            timeout: configuration.serviceTimeout, retries: 1)
        return .data(MemberResponse(profile))
    }

    /// Account deletion; a repeated request (the member is gone already) is answered the same.
    /// The member-service answers once the issuer ended the member's sessions and refuses new ones, so no
    /// session of the member works after the 204, not even one a racing login started; this gateway
    /// refuses their access tokens at once (the others on `session.ended`).
    func deleteMe(_ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        try recentSignIn.check(member.claims, now: Self.now())
        let reply = try await services().call(Endpoints.memberDelete, MemberDeleteRequest(memberId: member.id, accessToken: member.token),
                                              timeout: configuration.serviceTimeout, retries: 1)
        sessionsEnded(reply.sessionsEnded)
        return .noContent
    }

    /// Hands the provider's login fields, checked like a login's, and the Bearer's token to the token-verifier,
    /// which proves the provider token and hands the identity on to the member-service, which checks the
    /// token and links the identity.
    func linkIdentity(_ context: RequestContext, _ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        try recentSignIn.check(member.claims, now: Self.now())
        let body = try RequestBody.decode(LinkIdentityBody.self, from: context.request)
        guard body.provider.utf8.count <= FieldLimits.providerName, let provider = Provider(name: body.provider) else {
            throw ServiceFailure.invalidRequest("provider must be one of google, apple, naver, kakao.")
        }
        let fields = try ProviderLogin.linking(provider, body)
        // Linking is idempotent (the same identity again is a no-op), so a lost reply may be retried; not with
        // a server nonce, which the first attempt may have spent.
        try Field.optional(body.deviceId, "deviceId", maxBytes: FieldLimits.deviceId)
        let profile = try await services().call(
            Endpoints.link, LinkRequest(verify: fields.verify, memberId: member.id, accessToken: member.token, name: fields.name, email: fields.email,
                                        deviceId: body.deviceId),
            timeout: configuration.serviceTimeout, retries: Self.retries(nonce: fields.verify.nonce))
        return .data(MemberResponse(profile))
    }

    func unlinkIdentity(_ member: AuthenticatedMember, provider name: String) async throws(ServiceFailure) -> HTTPResponse {
        guard name.utf8.count <= FieldLimits.providerName, let provider = Provider(name: name) else {
            throw ServiceFailure.invalidRequest("The provider in the path must be one of google, apple, naver, kakao.")
        }
        try recentSignIn.check(member.claims, now: Self.now())
        let ended = try await services().call(Endpoints.memberUnlinkIdentity,
                                              UnlinkIdentityRequest(memberId: member.id, accessToken: member.token, provider: provider),
                                              timeout: configuration.serviceTimeout, retries: 0)
        sessionsEnded(ended)
        return .noContent
    }

    /// Now, in seconds since 1970.
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// Refuses the access tokens of the sessions a deletion, an unlink or an Apple notification ended, at
    /// once on this gateway (the others learn of them from `session.ended`).
    func sessionsEnded(_ ended: SessionsEnded?) {
        guard let ended else { return }
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
    }
}
