import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AuthClient {
    /// Logs in with what a provider's SDK handed the app, stores the service tokens and reports
    /// `.signedIn`. A login on a device that had a session replaces it.
    ///
    /// Throws `APIError` (`INVALID_PROVIDER_TOKEN`, `PROVIDER_TOKEN_EXPIRED`, `NONCE_MISMATCH`,
    /// `PROVIDER_DISABLED`, ...) when the server refuses, `TransportError` when it cannot be reached.
    @discardableResult
    public func login(with credential: ProviderCredential) async throws -> LoginResult {
        guard !credential.token.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ClientError.invalidArgument("The \(credential.provider) token is empty.")
        }
        var fields = credential.fields
        fields.deviceId = try await deviceIdentifier()
        fields.timezone = configuration.timezone
        fields.locale = configuration.locale
        let request = try Self.request(configuration, "POST", "/api/auth/\(credential.provider.pathName)-login", body: fields)
        let sentAt = Date()
        let (data, response) = try await Self.send(request, over: transport)
        let payload = try Self.decode(LoginPayload.self, data, response)
        try await session.signIn(payload, receivedAt: sentAt)
        return LoginResult(memberId: payload.memberId, isNewMember: !payload.isExistingMember)
    }

    /// Rotates the refresh token now (requests do this by themselves when needed). Concurrent
    /// calls share one refresh. When the server refuses the refresh token the user is signed out
    /// and the `APIError` (`INVALID_REFRESH_TOKEN`, `REFRESH_TOKEN_REUSED`) is thrown.
    public func refresh() async throws {
        _ = try await session.refreshed(replacing: nil)
    }
}
