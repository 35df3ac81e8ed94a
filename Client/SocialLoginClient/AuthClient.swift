import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's client of the social-login backend: logs in with a provider's token, keeps the
/// service tokens in a `TokenStore`, and sends authorized requests that refresh the access
/// token when needed, once, shared by every request that needs it.
///
/// Create one per backend and keep it for the app's lifetime; it is safe to use from any task.
public final class AuthClient: Sendable {
    /// Where the backend is and when to refresh.
    public let configuration: AuthClientConfiguration
    /// Where the tokens and the device identifier are kept.
    public let tokenStore: any TokenStore
    let transport: any HTTPTransport
    let deviceIdentifierProvider: any DeviceIdentifierProvider
    let session: AuthSession

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - configuration: the gateway's URL and the refresh settings.
    ///   - tokenStore: where tokens live; `KeychainTokenStore` on Apple platforms, in memory by default.
    ///   - deviceIdentifier: supplies `deviceId`; by default a UUID made once and kept in `tokenStore`.
    ///   - transport: sends the HTTP requests; a `URLSession` by default.
    public init(configuration: AuthClientConfiguration, tokenStore: any TokenStore = InMemoryTokenStore(),
                deviceIdentifier: (any DeviceIdentifierProvider)? = nil, transport: any HTTPTransport = URLSessionTransport()) {
        let deviceIdentifierProvider = deviceIdentifier ?? StoredDeviceIdentifier(store: tokenStore)
        self.configuration = configuration
        self.tokenStore = tokenStore
        self.transport = transport
        self.deviceIdentifierProvider = deviceIdentifierProvider
        self.session = AuthSession(store: tokenStore, refreshLimit: configuration.refreshLimit) { refreshToken in
            let deviceId = try await deviceIdentifierProvider.deviceIdentifier()
            let request = try Self.request(configuration, "POST", "/api/auth/refresh",
                                           body: RefreshRequestBody(refreshToken: refreshToken, deviceId: deviceId))
            let (data, response) = try await Self.send(request, over: transport)
            return try Self.decode(LoginPayload.self, data, response)
        }
    }

    /// Creates a client for the gateway at `baseURL` with the default settings.
    public convenience init(baseURL: URL, tokenStore: any TokenStore = InMemoryTokenStore()) {
        self.init(configuration: AuthClientConfiguration(baseURL: baseURL), tokenStore: tokenStore)
    }

    // MARK: State

    /// Sign-in state changes: the current state first, then every sign-in and sign-out, including
    /// the sign-out that follows a refresh the server refused (the user must log in again).
    public func authStates() async -> AsyncStream<AuthState> {
        await session.states()
    }

    /// Every sign-in, token refresh and sign-out (with its reason) from now on.
    public func authEvents() async -> AsyncStream<AuthEvent> {
        await session.events()
    }

    /// The signed-in member's ID, or nil when nobody is signed in.
    public func currentMemberId() async throws -> Int64? {
        try await session.current()?.memberId
    }

    /// A valid access token for requests this client does not send (a WebSocket handshake, say),
    /// refreshed first when it expires soon. Prefer `authorizedData(for:)`, which also handles a 401.
    public func accessToken() async throws -> String {
        try await session.accessToken(refreshingWithin: configuration.proactiveRefreshMargin)
    }

    /// The `deviceId` this client sends.
    public func deviceIdentifier() async throws -> String {
        try await deviceIdentifierProvider.deviceIdentifier()
    }

    // MARK: HTTP plumbing

    /// A request to `path` of the gateway, with a JSON body when given.
    static func request(_ configuration: AuthClientConfiguration, _ method: String, _ path: String,
                        body: (any Encodable)? = nil) throws -> URLRequest {
        var request = URLRequest(url: configuration.baseURL.appending(path: path))
        request.httpMethod = method
        request.timeoutInterval = Double(configuration.requestTimeout.components.seconds)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try APICoding.encode(body)
        }
        return request
    }

    /// Sends `request`; anything that kept a response from arriving becomes a `TransportError`.
    /// A 3xx that comes back to a request with a body or a method other than GET and HEAD (the transport did
    /// not follow it: ``RedirectGuard`` refuses one to another origin) is `ClientError.redirectRefused`.
    static func send(_ request: URLRequest, over transport: any HTTPTransport) async throws -> (Data, HTTPURLResponse) {
        let answer: (Data, HTTPURLResponse)
        do {
            answer = try await transport.send(request)
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError.network(error)
        }
        let method = request.httpMethod?.uppercased() ?? "GET"
        if (300..<400).contains(answer.1.statusCode), request.httpBody != nil || !(method == "GET" || method == "HEAD") {
            throw ClientError.redirectRefused
        }
        return answer
    }

    /// The `data` of a 2xx answer, or the `APIError` of any other.
    static func decode<T: Decodable>(_ type: T.Type, _ data: Data, _ response: HTTPURLResponse) throws -> T {
        guard (200..<300).contains(response.statusCode) else { throw APICoding.error(from: data, response: response) }
        return try APICoding.decodeData(type, from: data)
    }

    /// Nothing for a 2xx answer, the `APIError` of any other.
    static func expectSuccess(_ data: Data, _ response: HTTPURLResponse) throws {
        guard (200..<300).contains(response.statusCode) else { throw APICoding.error(from: data, response: response) }
    }
}
