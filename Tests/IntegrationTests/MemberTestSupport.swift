import Contracts
import Crypto
import Foundation
import JSON
import TestSupport

/// Logins and member calls the member tests share.
extension RunningStack {
    /// An Apple identity token from the dev IdP for `sub`, with the nonce of `rawNonce` when given.
    func appleToken(sub: String, email: String? = nil, rawNonce: String? = nil, privateEmail: Bool? = nil) async throws -> String {
        var claims: [String: JSONValue] = ["sub": .string(sub), "aud": .string(TestStack.ClientID.apple)]
        if let email {
            claims["email"] = .string(email)
            // Apple sends these flags as strings; the verifier accepts both.
            claims["email_verified"] = .string("true")
        }
        if let privateEmail { claims["is_private_email"] = .string(privateEmail ? "true" : "false") }
        if let rawNonce { claims["nonce"] = .string(Digest.sha256Hex(rawNonce)) }
        return try await mint("apple", claims: claims)
    }

    /// Signs in with Apple through the gateway.
    func appleLogin(sub: String, tokenEmail: String? = nil, fullName: PersonName? = nil, appEmail: String? = nil,
                    deviceId: String = "device-\(UUID().uuidString)") async throws -> APIResponse {
        let rawNonce = "nonce-\(UUID().uuidString)"
        let token = try await appleToken(sub: sub, email: tokenEmail, rawNonce: rawNonce)
        return try await post("/api/auth/apple-login", json: AppleLoginBody(identityToken: token, deviceId: deviceId, rawNonce: rawNonce,
                                                                             fullName: fullName, email: appEmail))
    }

    /// `GET /api/members/me`.
    func me(_ accessToken: String) async throws -> APIResponse {
        try await get("/api/members/me", bearer: accessToken)
    }

    /// `POST /api/members/me/identities` with `body`.
    func link(_ accessToken: String, _ body: LinkIdentityBody) async throws -> APIResponse {
        try await post("/api/members/me/identities", json: body, headers: [("Authorization", "Bearer \(accessToken)")])
    }

    /// `POST /api/members/me/identities` with a Google ID token for `sub`.
    func linkGoogle(_ accessToken: String, sub: String) async throws -> APIResponse {
        try await link(accessToken, LinkIdentityBody(provider: "google", idToken: try await googleToken(sub: sub)))
    }

    /// `DELETE /api/members/me/identities/{provider}`.
    func unlink(_ accessToken: String, _ provider: String) async throws -> APIResponse {
        try await send("DELETE", "/api/members/me/identities/\(provider)", headers: [("Authorization", "Bearer \(accessToken)")])
    }

    /// `DELETE /api/members/me`.
    func deleteAccount(_ accessToken: String) async throws -> APIResponse {
        try await send("DELETE", "/api/members/me", headers: [("Authorization", "Bearer \(accessToken)")])
    }

    /// Sends `method path` with a Bearer token and no body.
    func send(_ method: String, _ path: String, bearer: String) async throws -> APIResponse {
        try await send(method, path, headers: [("Authorization", "Bearer \(bearer)")])
    }

    /// Calls `/api/members/me` until it answers `status` or `timeout` passes; returns the last answer.
    func me(_ token: String, until status: Int, timeout: Duration = .seconds(10)) async throws -> APIResponse {
        try await poll(timeout: timeout, { try await get("/api/members/me", bearer: token) }, until: { $0.status == status })
    }

    /// Rotates `refreshToken` through the gateway.
    func refresh(_ refreshToken: String) async throws -> APIResponse {
        try await post("/api/auth/refresh", json: RefreshBody(refreshToken: refreshToken))
    }

    /// Sends the Apple server-to-server notification `payload` through the gateway.
    func postAppleNotification(_ payload: String) async throws -> APIResponse {
        try await post("/api/auth/apple/notifications", json: AppleNotificationBody(payload: payload))
    }

    /// Rows of the member's identities, keyed by provider.
    func identityRows(memberId: Int64) async throws -> [String: [String: String]] {
        let rows = try await rows("""
            SELECT provider, provider_user_id, email, email_verified::text, is_private_email::text, email_disabled::text,
                   name, sealed_credential
              FROM member.identities WHERE member_id = \(memberId)
            """)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["provider"] ?? "", $0) })
    }
}
