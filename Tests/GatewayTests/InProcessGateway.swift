import Contracts
import Crypto
import Foundation
import HTTPServer
import JOSE
import JSON
import Logging
import Metrics
import ServiceStubs
import Testing
@testable import Gateway

/// The gateway's handler called in process, without NATS: with no services connected, or with
/// ``StubServices`` behind it that serve the key set of a signer of the test's own as the issuer's, and the
/// catch-up gate on ended sessions passed, so that tokens the test signs are checked as the issuer's are.
struct InProcessGateway {
    /// The `iss` and `aud` the handler takes.
    static let issuer = "https://issuer.test"
    static let audience = "api"

    /// One answer, read back.
    struct Answer {
        let status: Int
        /// The error code, when the body is the error envelope.
        let code: String?
        /// The error message, when the body is the error envelope.
        let message: String?
        /// The headers, names lower-cased.
        let headers: [String: String]
        let body: [UInt8]
        /// The `X-Request-Id` the request was sent with.
        let sentRequestID: String?
    }

    let handler: APIHandler
    /// The services behind the handler; nil when none is connected.
    let services: StubServices?
    /// The issuer's signing key, as far as the handler knows.
    let signer: JWTSigner

    /// A handler with services behind it when `connected`, else with none (every call is then 503);
    /// `caughtUp` false leaves the gate on ended sessions closed. The rate limit is off unless
    /// `rateLimitBurst` is given (then a request a second with bursts of that many); with `logs`, the
    /// handler's lines from debug up are written there.
    init(connected: Bool = true, caughtUp: Bool = true, serviceTimeout: Duration = .seconds(5), rateLimitBurst: Int? = nil,
         logs: LogSink? = nil) throws {
        var configuration = GatewayConfiguration()
        configuration.rateLimitRPS = rateLimitBurst == nil ? 0 : 1
        configuration.rateLimitBurst = rateLimitBurst ?? 0
        configuration.tokenIssuer = Self.issuer
        configuration.tokenAudience = Self.audience
        configuration.serviceTimeout = serviceTimeout
        let logger = logs.map { Logger(label: "gateway-test", level: .debug, sink: $0) } ?? Logger(label: "gateway-test", level: .critical)
        handler = APIHandler(configuration: configuration, logger: logger, metrics: MetricsRegistry())
        signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "issuer-key", algorithm: .ES256)
        services = connected ? StubServices() : nil
        if let services {
            let keys = try AccessTokenKeys(jwks: JSONValue(encoding: JWKSet(keys: [signer.jwk])), issuer: Self.issuer,
                                           audience: Self.audience)
            services.answer(Endpoints.accessTokenKeys, with: keys)
            handler.client = services
        }
        if caughtUp { handler.accessTokens.caughtUp.open() }
    }

    /// An access token for member `sub` in session `sid`, signed by `signer` (the issuer's by default), of a
    /// session that signed in `signedInAgo` seconds ago (nil: a token without `auth_time`).
    func token(sub: String = "7", sid: String = "0d3c8b8e-5a51-4c3e-9b7a-1f2b3c4d5e6f", iss: String = issuer,
               aud: String = audience, expiresIn: Int64 = 600, signedInAgo: Int64? = 60, signer: JWTSigner? = nil) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = AccessTokenClaims(iss: iss, aud: aud, sub: sub, sid: sid, iat: now - 60, exp: now + expiresIn,
                                       jti: UUID().uuidString, authTime: signedInAgo.map { now - $0 })
        return try (signer ?? self.signer).sign(claims)
    }

    /// Sends a request to the handler; a JSON body gets its content type, `bearer` the Authorization header,
    /// a request without `X-Request-Id` a new one, which the answer must carry back, and `target` is the path
    /// as sent, before the server decoded it (`path` by default).
    func send(_ method: String, _ path: String, target: String? = nil, headers: [String: String] = [:], json: String? = nil,
              bearer: String? = nil, bodyTooLarge: Bool = false) async -> Answer {
        var all = headers
        if json != nil, all["Content-Type"] == nil { all["Content-Type"] = "application/json" }
        if let bearer { all["Authorization"] = "Bearer \(bearer)" }
        if all["X-Request-Id"] == nil { all["X-Request-Id"] = UUID().uuidString.lowercased() }
        let request = HTTPRequest(method: method, path: path, target: target, headers: all, body: Array((json ?? "").utf8),
                                  bodyTooLarge: bodyTooLarge)
        let response = await handler.handle(request)
        let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(response.body))
        return Answer(status: response.status, code: envelope?.error.code.rawValue, message: envelope?.error.message,
                      headers: Dictionary(response.headers.map { ($0.0.lowercased(), $0.1) }) { first, _ in first },
                      body: response.body, sentRequestID: all["X-Request-Id"])
    }
}

extension InProcessGateway.Answer {
    /// Expects an API refusal: `status` with the error `code`, `Cache-Control: no-store`, and the request's ID.
    func expectRefusal(_ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, "code \(self.code ?? "none")", sourceLocation: sourceLocation)
        #expect(self.code == code, sourceLocation: sourceLocation)
        #expect(headers["cache-control"] == "no-store", sourceLocation: sourceLocation)
        #expect(headers["x-request-id"] != nil && headers["x-request-id"] == sentRequestID, sourceLocation: sourceLocation)
    }

    /// The `data` member of a successful JSON answer, decoded as `T`.
    func data<T: Codable & Sendable>(_ type: T.Type) throws -> T {
        try MessageCoding.decode(DataEnvelope<T>.self, from: body).data
    }
}
