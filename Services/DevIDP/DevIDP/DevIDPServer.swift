import Foundation
import HTTPServer
import JSON
import Logging
import Runtime
import Synchronization

/// The dev identity provider over HTTP: for local runs, tests and load tests, never production.
///
/// - `GET /<provider>/.well-known/openid-configuration`, `GET /<provider>/jwks`
/// - `POST /<provider>/mint` (`MintRequest`) → `{"token": ...}` (`?format=raw`: the token as text)
/// - `POST /<provider>/rotate-keys` → `{"kid": ...}`
/// - `POST /<provider>/control` (`ProviderControl`, e.g. `{"available": false}`) → 204
/// - Naver: `POST /naver/mint`, `GET /naver/v1/nid/me`, `POST /naver/oauth2.0/token` (`grant_type=delete`)
/// - Apple: `POST /apple/auth/token`, `POST /apple/auth/revoke`, `POST /apple/mint-code`,
///   `POST /apple/mint-notification`
/// - `GET /stats` → `DevIDPStats` (revocations, deletions, key-set fetches)
/// - `/webhooks/<inbox>`: webhook receivers (``WebhookInboxes``)
public struct DevIDPServer: Service {
    private let configuration: DevIDPConfiguration
    private let logger: Logger
    private let onListening: @Sendable (Int, DevIdentityProvider) -> Void
    private let handlersOnItsThread: Bool

    /// Creates the server; `onListening` is told the bound port and the provider state.
    ///
    /// The provider's state is kept on a thread of its own (``DevIdentityProvider``). With `handlersOnItsThread`,
    /// the HTTP handlers run there too, token signing included: nothing it answers then waits for Swift's
    /// cooperative pool, as a test process needs of it (its suites hold the pool's threads for seconds), at
    /// the price of one core. Without (the executable), handlers sign on the pool, on every core.
    public init(configuration: DevIDPConfiguration, logger: Logger, handlersOnItsThread: Bool = false,
                onListening: @escaping @Sendable (Int, DevIdentityProvider) -> Void = { _, _ in }) {
        self.configuration = configuration
        self.logger = logger
        self.handlersOnItsThread = handlersOnItsThread
        self.onListening = onListening
    }

    public func run() async throws {
        let box = ProviderBox()
        let inboxes = WebhookInboxes()
        var http = HTTPServer.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        let maxAge = configuration.jwksMaxAge
        let executor = ThreadExecutor(name: "dev-idp")
        let server = HTTPServer(configuration: http, logger: logger.named("http"),
                                executor: handlersOnItsThread ? executor : nil) { request in
            guard let provider = box.provider else { return HTTPResponse(status: 503) }
            return await Self.handle(request, provider: provider, inboxes: inboxes, jwksMaxAge: maxAge)
        }
        try server.start()
        let baseURL = configuration.baseURL ?? "http://\(configuration.host):\(server.port)"
        let provider = try await DevIdentityProvider.make(baseURL: baseURL, configuration: configuration, executor: executor)
        box.provider = provider
        logger.info("dev-idp listening", ["http.port": String(server.port), "dev_idp.base_url": baseURL])
        onListening(server.port, provider)
        try await server.run()
    }

    static func handle(_ request: HTTPRequest, provider: DevIdentityProvider, inboxes: WebhookInboxes, jwksMaxAge: Int) async -> HTTPResponse {
        let segments = request.path.split(separator: "/").map(String.init)
        if segments == ["stats"] {
            return json(await provider.stats())
        }
        if segments.count == 2, segments[0] == "webhooks" {
            return await inboxes.handle(request, name: segments[1])
        }
        guard let name = segments.first, DevIdentityProvider.allProviderNames.contains(name) else {
            return HTTPResponse(status: 404)
        }
        let rest = Array(segments.dropFirst())
        if request.method == "POST", rest == ["control"] {
            guard let control = try? MessageCoding.decode(ProviderControl.self, from: request.body) else {
                return error(400, "send {\"available\": false} (optional: jwksAvailable, delayMs, subject)")
            }
            await provider.control(name, control)
            return HTTPResponse(status: 204)
        }
        switch name {
        case "naver": return await handleNaver(request, rest, provider: provider)
        case "apple":
            if let response = await handleApple(request, rest, provider: provider) { return response }
        default: break
        }
        switch (request.method, rest) {
        case ("GET", [".well-known", "openid-configuration"]):
            return json(OpenIDConfiguration(issuer: provider.issuer(name), jwks_uri: provider.jwksURL(name)))
        case ("GET", ["jwks"]):
            guard await provider.behaviour(name, subject: nil).jwksAvailable else { return error(503, "temporarily_unavailable") }
            guard let keys = await provider.publishedKeys(name) else { return HTTPResponse(status: 404) }
            var response = json(keys)
            response.headers.append(("Cache-Control", "public, max-age=\(jwksMaxAge)"))
            return response
        case ("GET", ["unpublished-jwks"]):
            guard let keys = await provider.unpublishedKeys(name) else { return HTTPResponse(status: 404) }
            return json(keys)
        case ("POST", ["mint"]):
            guard let mint = try? MessageCoding.decode(MintRequest.self, from: request.body),
                  let token = try? await provider.mint(name, mint) else {
                return error(400, "send {\"claims\": {...}} (optional: algorithm, header, kid, unpublishedKey, expiresIn)")
            }
            if request.query["format"] == "raw" {
                return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array(token.utf8))
            }
            return json(MintResponse(token: token))
        case ("POST", ["rotate-keys"]):
            guard let kid = try? await provider.rotate(name) else { return HTTPResponse(status: 500) }
            return json(["kid": kid])
        default:
            return HTTPResponse(status: 404)
        }
    }

    static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        let body = (try? MessageCoding.encodeSortingKeys(value)) ?? []
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// An OAuth-style error answer, `{"error": code}`.
    static func error(_ status: Int, _ code: String) -> HTTPResponse {
        json(["error": code], status: status)
    }
}

/// The discovery document's fields that clients read.
private struct OpenIDConfiguration: Encodable {
    let issuer: String
    let jwks_uri: String
    var id_token_signing_alg_values_supported = ["RS256", "ES256", "EdDSA"]
    var subject_types_supported = ["public"]
    var response_types_supported = ["id_token"]
}

/// The provider state, set once the port (and so the base URL) is known.
private final class ProviderBox: Sendable {
    private let value = Mutex<DevIdentityProvider?>(nil)

    var provider: DevIdentityProvider? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
