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
        fields.platform = configuration.platform
        fields.appVersion = configuration.appVersion
        let request = try Self.request(configuration, "POST", "/api/auth/\(credential.provider.pathName)-login", body: fields)
        let sentAt = Date()
        let (data, response) = try await Self.send(request, over: transport)
        let payload = try Self.decode(LoginPayload.self, data, response)
        try await session.signIn(payload, receivedAt: sentAt)
        return LoginResult(memberId: payload.memberId, isNewMember: !payload.isExistingMember)
    }

    /// Signs in with a provider, handing `authorize` the nonce to give the provider's SDK: a server nonce
    /// (``serverNonce()``) when `serverNonce` is true, as a server that requires them (`REQUIRE_SERVER_NONCE`)
    /// needs, else one made here (`Nonce.random()`). `authorize` runs the SDK and returns its credential with
    /// the nonce in it: `.google(idToken:nonce: nonce.raw)` (the SDK was given `nonce.sha256` under the server's
    /// default `GOOGLE_NONCE_MODE=sha256Hex`, `nonce.raw` under `raw` or `either`),
    /// `.apple(identityToken:rawNonce: nonce.raw)` (the SDK was given `nonce.sha256`), `.kakao(idToken:nonce: nonce.raw)`.
    /// A server nonce is good once: after any failure (a `TIMEOUT` too, whose sign-in may have spent it) call
    /// this again, which fetches a new one, rather than resending the credential.
    @discardableResult
    public func signIn(serverNonce: Bool = false, _ authorize: (Nonce) async throws -> ProviderCredential) async throws -> LoginResult {
        let nonce = serverNonce ? try await self.serverNonce() : Nonce.random()
        return try await login(with: try await authorize(nonce))
    }

    /// A server nonce for this device (`POST /api/auth/nonce`), good for one login or link within 10
    /// minutes: give `raw` to Kakao's SDK, `sha256` to Apple's and to Google's (under the server's default
    /// `GOOGLE_NONCE_MODE=sha256Hex`; `raw` under `raw` or `either`), and send the credential back with `raw`.
    /// The server keeps nothing until it is used.
    public func serverNonce() async throws -> Nonce {
        let request = try Self.request(configuration, "POST", "/api/auth/nonce", body: NonceRequestBody(deviceId: try await deviceIdentifier()))
        let (data, response) = try await Self.send(request, over: transport)
        return Nonce(raw: try Self.decode(NoncePayload.self, data, response).nonce)
    }

    /// Rotates the refresh token now (requests do this by themselves when needed). Concurrent
    /// calls share one refresh. When the server refuses the refresh token the user is signed out
    /// and the `APIError` (`INVALID_REFRESH_TOKEN`, `REFRESH_TOKEN_REUSED`) is thrown.
    public func refresh() async throws {
        _ = try await session.refreshed(replacing: nil)
    }
}

/// `POST /api/auth/nonce`'s body.
private struct NonceRequestBody: Encodable {
    let deviceId: String
}

/// `POST /api/auth/nonce`'s answer.
private struct NoncePayload: Decodable {
    let nonce: String
    let expiresIn: Int
}
