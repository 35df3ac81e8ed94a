import Foundation
import HTTPServer
import JOSE
import Logging
import Runtime
import Synchronization

/// The dev identity provider over HTTP: for local runs, tests and load tests, never production.
///
/// - `GET /<provider>/.well-known/openid-configuration`, `GET /<provider>/jwks`
/// - `POST /<provider>/mint` (`MintRequest`) → `{"token": ...}` (`?format=raw`: the token as text)
/// - `POST /<provider>/rotate-keys` → `{"kid": ...}`
/// - `GET /stats` → key-set fetch counts
public struct DevIDPServer: Service {
    private let configuration: DevIDPConfiguration
    private let logger: Logger
    private let onListening: @Sendable (Int, DevIdentityProvider) -> Void

    /// Creates the server; `onListening` is told the bound port and the provider state.
    public init(configuration: DevIDPConfiguration, logger: Logger,
                onListening: @escaping @Sendable (Int, DevIdentityProvider) -> Void = { _, _ in }) {
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let box = ProviderBox()
        var http = HTTPServer.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        let maxAge = configuration.jwksMaxAge
        let server = HTTPServer(configuration: http, logger: logger.named("http")) { request in
            guard let provider = box.provider else { return HTTPResponse(status: 503) }
            return await Self.handle(request, provider: provider, jwksMaxAge: maxAge)
        }
        try server.start()
        let baseURL = configuration.baseURL ?? "http://\(configuration.host):\(server.port)"
        let provider = try DevIdentityProvider(baseURL: baseURL)
        box.provider = provider
        logger.info("dev-idp listening", ["http.port": String(server.port), "dev_idp.base_url": baseURL])
        onListening(server.port, provider)
        try await server.run()
    }

    static func handle(_ request: HTTPRequest, provider: DevIdentityProvider, jwksMaxAge: Int) async -> HTTPResponse {
        let segments = request.path.split(separator: "/").map(String.init)
        if segments == ["stats"] {
            return json(["jwksFetches": await provider.jwksFetches()])
        }
        guard let name = segments.first, DevIdentityProvider.providerNames.contains(name) else {
            return HTTPResponse(status: 404)
        }
        switch (request.method, Array(segments.dropFirst())) {
        case ("GET", [".well-known", "openid-configuration"]):
            return json(OpenIDConfiguration(issuer: provider.issuer(name), jwks_uri: provider.jwksURL(name)))
        case ("GET", ["jwks"]):
            guard let keys = await provider.publishedKeys(name) else { return HTTPResponse(status: 404) }
            var response = json(keys)
            response.headers.append(("Cache-Control", "public, max-age=\(jwksMaxAge)"))
            return response
        case ("POST", ["mint"]):
            guard let mint = try? JSONDecoder().decode(MintRequest.self, from: Data(request.body)),
                  let token = try? await provider.mint(name, mint) else {
                return HTTPResponse(status: 400, body: Array(#"{"error":"send {\"claims\": {...}}"}"#.utf8))
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

    static func json<T: Encodable>(_ value: T) -> HTTPResponse {
        let body = (try? JSONEncoder().encode(value)).map(Array.init) ?? []
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }
}

/// The discovery document's fields that clients read.
private struct OpenIDConfiguration: Encodable {
    let issuer: String
    let jwks_uri: String
    var id_token_signing_alg_values_supported = ["RS256"]
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
