import Contracts
import DevIDP
import Foundation
import HTTPClient
import JSON
import Logging
import NATS
import TokenIssuer

/// A started stack and what tests do with it: mint provider tokens, call the gateway.
public struct RunningStack: Sendable {
    /// The gateway's base URL.
    public let gatewayURL: String
    /// The gateway's management port's base URL (`/metrics`).
    public let managementURL: String
    /// The admin-api's base URL (its own port; the test admin's token is ``TestStack/adminToken``).
    public let adminURL: String
    /// The dev identity provider's base URL.
    public let devIDPURL: String
    /// The dev identity provider itself (to mint tokens, rotate keys, count fetches).
    public let idp: DevIdentityProvider
    /// The stack's own database.
    public let databaseURL: String
    /// The nats-server the stack's services talk over (the shared one, or a private stack's own).
    public let natsURL: String
    /// Every event the stack's stream stored since the stack started, for ``event(_:timeout:where:)``.
    let eventLog: EventLog
    /// The stack's token-issuer, which a test may stop and start again.
    public let issuer: ServiceHandle
    /// The configuration the stack's token-issuer runs with.
    let issuerConfiguration: TokenIssuerConfiguration

    private static let client = HTTPClient(logger: Logger(label: "test-client", level: .error))

    /// A unique provider subject, so tests never share an identity.
    public static func uniqueSubject(_ prefix: String = "user") -> String {
        "\(prefix)-\(UUID().uuidString.lowercased())"
    }

    /// A Google ID token from the dev IdP; `claims` override the defaults (sub, aud, email).
    public func googleToken(sub: String, claims: [String: JSONValue] = [:], expiresIn: Int? = nil,
                            unpublishedKey: Bool = false) async throws -> String {
        var all: [String: JSONValue] = ["sub": .string(sub), "aud": .string(TestStack.ClientID.googleIOS),
                                        "azp": .string(TestStack.ClientID.googleIOS),
                                        "email": .string("\(sub)@example.com"), "email_verified": .bool(true)]
        all.merge(claims) { _, new in new }
        return try await mint("google", MintRequest(claims: all, expiresIn: expiresIn, unpublishedKey: unpublishedKey))
    }

    /// Mints a token for `provider` with exactly the request's claims (plus iss/iat/exp when absent).
    public func mint(_ provider: String, _ request: MintRequest) async throws -> String {
        guard let token = try await idp.mint(provider, request) else { throw TestStackError("no provider \(provider)") }
        return token
    }

    /// Logs in with Google through the gateway.
    public func googleLogin(sub: String, deviceId: String = "device-1") async throws -> APIResponse {
        let token = try await googleToken(sub: sub)
        return try await post("/api/auth/google-login", json: GoogleLoginBody(idToken: token, deviceId: deviceId))
    }

    /// Logs in with Google through the gateway as `sub` (by default a new member) and returns the session.
    public func googleSession(sub: String = RunningStack.uniqueSubject(), deviceId: String = "device-1") async throws -> LoginResponse {
        try await googleLogin(sub: sub, deviceId: deviceId).data(LoginResponse.self)
    }

    /// A new member logged in with Google on two devices, "phone" and "tablet".
    public func memberOnTwoDevices() async throws -> (phone: LoginResponse, tablet: LoginResponse) {
        let sub = Self.uniqueSubject()
        let phone = try await googleSession(sub: sub, deviceId: "phone")
        return (phone, try await googleSession(sub: sub, deviceId: "tablet"))
    }

    /// POSTs `json` (encoded) to the gateway.
    public func post<Body: Encodable>(_ path: String, json: Body, headers: [(String, String)] = []) async throws -> APIResponse {
        try await post(path, body: Array(JSONEncoder().encode(json)), headers: headers)
    }

    /// POSTs raw bytes to the gateway with `Content-Type: application/json` unless `headers` say otherwise.
    public func post(_ path: String, body: [UInt8], headers: [(String, String)] = [],
                     contentType: String? = "application/json") async throws -> APIResponse {
        var all = headers
        if let contentType { all.append(("Content-Type", contentType)) }
        return try await send("POST", path, headers: all, body: body)
    }

    /// GETs a gateway path, with a Bearer token when given.
    public func get(_ path: String, bearer: String? = nil, headers: [(String, String)] = []) async throws -> APIResponse {
        try await send("GET", path, headers: headers + (bearer.map { [("Authorization", "Bearer \($0)")] } ?? []), body: nil)
    }

    /// Sends any request to the gateway.
    public func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> APIResponse {
        try await Self.send(method, gatewayURL + path, headers: headers, body: body)
    }

    /// Sends any request to any URL (a standalone gateway, the dev IdP).
    public static func send(_ method: String, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> APIResponse {
        let response = try await client.execute(HTTPClientRequest(url: url, method: method, headers: headers,
                                                                  body: body, timeout: .seconds(30)))
        return APIResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// The tests' own connection to the stack's nats-server.
    func nats() async throws -> NATSConnection {
        try await TestNATS.shared.connection(to: natsURL)
    }

    /// Waits until the gateway's `/readyz?services=all` says it and every service answer.
    func waitUntilReady(timeout: Duration = .seconds(60)) async throws {
        try await waitUntil(timeout: timeout, "the stack did not become ready within \(timeout); is nats-server at \(natsURL)?") {
            (try? await get("/readyz?services=all"))?.status == 200
        }
    }
}

/// A gateway answer.
public struct APIResponse: Sendable {
    /// The HTTP status.
    public let status: Int
    /// Headers, names lowercased.
    public let headers: [String: String]
    /// The raw body.
    public let body: [UInt8]

    /// The `data` of a success envelope.
    public func data<T: Codable & Sendable>(_ type: T.Type) throws -> T {
        try JSONDecoder.api.decode(DataEnvelope<T>.self, from: Data(body)).data
    }

    /// The failure of an error envelope, or nil when the body is not one.
    public var failure: ServiceFailure? {
        try? JSONDecoder.api.decode(ErrorEnvelope.self, from: Data(body)).error
    }

    /// The body as a JSON object.
    public var object: [String: JSONValue]? {
        try? JSONDecoder.api.decode([String: JSONValue].self, from: Data(body))
    }

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

extension JSONDecoder {
    /// Decodes the API's JSON (ISO 8601 dates).
    static var api: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
