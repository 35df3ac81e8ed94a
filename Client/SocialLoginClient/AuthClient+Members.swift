import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AuthClient {
    /// The signed-in member and its linked identities.
    public func me() async throws -> Member {
        try await authorized("GET", "/api/members/me", as: Member.self)
    }

    /// Changes the member's name, time zone (an IANA name such as `Asia/Seoul`) or locale (a BCP 47
    /// tag such as `ko-KR`); a field left nil stays as it is. Returns the member as it is now. The
    /// server answers `APIError` `INVALID_REQUEST` (400) naming a field it does not accept.
    @discardableResult
    public func updateProfile(name: String? = nil, timezone: String? = nil, locale: String? = nil) async throws -> Member {
        try await authorized("PATCH", "/api/members/me", body: ProfileUpdateBody(name: name, timezone: timezone, locale: locale),
                             as: Member.self)
    }

    /// Deletes the account (provider grants revoked, personal data deleted, every session ended)
    /// and signs out with `.accountDeleted`. On failure the user stays signed in.
    public func deleteAccount() async throws {
        try await authorized("DELETE", "/api/members/me")
        try await session.signOut(.accountDeleted)
    }

    /// Links another provider's identity to the signed-in member and returns the member.
    /// Throws `APIError` `IDENTITY_IN_USE` (409) when it belongs to another member.
    @discardableResult
    public func linkIdentity(_ credential: ProviderCredential) async throws -> Member {
        var fields = credential.fields
        fields.provider = credential.provider.rawValue
        // The device a server nonce in the credential was issued for.
        fields.deviceId = try await deviceIdentifier()
        return try await authorized("POST", "/api/members/me/identities", body: fields, as: Member.self)
    }

    /// Unlinks `provider`'s identity. Throws `APIError` `LAST_IDENTITY` (409) for the only one.
    public func unlinkIdentity(_ provider: IdentityProvider) async throws {
        try await authorized("DELETE", "/api/members/me/identities/\(provider.pathName)")
    }
}

/// `PATCH /api/members/me`: the fields to change (nil ones are left out of the JSON).
private struct ProfileUpdateBody: Encodable {
    let name: String?
    let timezone: String?
    let locale: String?
}
