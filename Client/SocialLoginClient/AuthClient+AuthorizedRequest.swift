import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AuthClient {
    /// Sends `request` with `Authorization: Bearer <access token>` and returns whatever the
    /// server answers. The token is refreshed first when it expires soon; on a 401 the client
    /// refreshes once (shared with every other request that got a 401 meanwhile) and sends the
    /// request once more, never more, returning that second answer even if it is a 401 too.
    ///
    /// The token goes only to `baseURL`'s origin and `configuration.authorizedOrigins`: a request to
    /// any other origin is sent as it is, without it, and a 401 from there starts no refresh. A 401 that asks
    /// for a fresh sign-in (`WWW-Authenticate: Bearer error="insufficient_user_authentication"`) starts none
    /// either: a refresh keeps the sign-in's time, so only signing in again helps.
    ///
    /// Use it for your own API that accepts this backend's access tokens. Throws
    /// `ClientError.notSignedIn` without tokens, `TransportError` when no answer came, the
    /// refresh's `APIError` when the server ended the session (the user is then signed out), and
    /// `ClientError.refreshLimitReached` when refreshes came faster than `configuration.refreshLimit`.
    public func authorizedData(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        guard configuration.isAuthorizedOrigin(request.url) else { return try await Self.send(request, over: transport) }
        let token = try await session.accessToken(refreshingWithin: configuration.proactiveRefreshMargin)
        var attempt = request
        attempt.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await Self.send(attempt, over: transport)
        guard response.statusCode == 401, !Self.asksForFreshSignIn(response), !Self.refusesProviderToken(data) else { return (data, response) }
        let fresh = try await session.refreshed(replacing: token)
        attempt.setValue("Bearer \(fresh.accessToken)", forHTTPHeaderField: "Authorization")
        return try await Self.send(attempt, over: transport)
    }

    /// An authorized call to the gateway that answers `{"data": T}`.
    func authorized<T: Decodable>(_ method: String, _ path: String, body: (any Encodable)? = nil, as type: T.Type) async throws -> T {
        let (data, response) = try await authorizedData(for: Self.request(configuration, method, path, body: body))
        try Self.checkSignInFresh(response)
        return try Self.decode(type, data, response)
    }

    /// An authorized call to the gateway that answers 204.
    func authorized(_ method: String, _ path: String, body: (any Encodable)? = nil) async throws {
        let (data, response) = try await authorizedData(for: Self.request(configuration, method, path, body: body))
        try Self.checkSignInFresh(response)
        try Self.expectSuccess(data, response)
    }

    /// Whether `response` is the RFC 9470 challenge: the access token is valid, its sign-in too old.
    /// Whether a 401 refuses the provider token the request carried (a link's), not the access token: a
    /// refresh would not help, and the request is not sent again.
    static func refusesProviderToken(_ data: Data) -> Bool {
        guard let code = APICoding.errorCode(from: data) else { return false }
        return [.invalidProviderToken, .providerTokenExpired, .nonceMismatch].contains(code)
    }

    static func asksForFreshSignIn(_ response: HTTPURLResponse) -> Bool {
        response.statusCode == 401
            && response.value(forHTTPHeaderField: "WWW-Authenticate")?.contains("insufficient_user_authentication") == true
    }

    /// `ClientError.reauthenticationRequired` for the RFC 9470 challenge.
    static func checkSignInFresh(_ response: HTTPURLResponse) throws {
        if asksForFreshSignIn(response) { throw ClientError.reauthenticationRequired }
    }
}
