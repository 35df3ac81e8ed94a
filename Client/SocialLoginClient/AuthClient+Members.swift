import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AuthClient {
    /// The signed-in member and its linked identities.
    public func me() async throws -> Member {
        try await authorized("GET", "/api/members/me", as: Member.self)
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
        return try await authorized("POST", "/api/members/me/identities", body: fields, as: Member.self)
    }

    /// Unlinks `provider`'s identity. Throws `APIError` `LAST_IDENTITY` (409) for the only one.
    public func unlinkIdentity(_ provider: IdentityProvider) async throws {
        try await authorized("DELETE", "/api/members/me/identities/\(provider.pathName)")
    }
}
