import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing
import TestSupport

/// Failures reach the app as types it can switch on: `APIError` with the envelope's code, the
/// status and `Retry-After`; `TransportError` when no answer came; `ClientError` before sending.
@Suite("Typed errors")
struct TypedErrorTests {
    @Test("a refused provider token is an APIError with its code, message, status and request ID")
    func invalidProviderToken() async throws {
        let stack = try await TestStack.shared.running()
        let error = await #expect(throws: APIError.self) {
            try await makeClient(stack.gatewayURL).login(with: .google(idToken: "x.y.z"))
        }
        #expect(error?.code == .invalidProviderToken)
        #expect(error?.status == 401)
        #expect(error?.message.isEmpty == false)
        #expect(error?.requestId?.isEmpty == false)
        #expect(error?.retryAfter == nil)
    }

    @Test("a token whose nonce is not the SHA-256 of the raw nonce is NONCE_MISMATCH")
    func nonceMismatch() async throws {
        let stack = try await TestStack.shared.running()
        let token = try await stack.appleToken(sub: RunningStack.uniqueSubject(), nonce: Nonce.random().sha256)
        let error = await #expect(throws: APIError.self) {
            try await makeClient(stack.gatewayURL).login(with: .apple(identityToken: token, rawNonce: Nonce.random().raw))
        }
        #expect(error?.code == .nonceMismatch)
        #expect(error?.status == 401)
    }

    @Test("503 SERVICE_UNAVAILABLE carries Retry-After")
    func serviceUnavailable() async throws {
        // A gateway on a nats-server where no service listens.
        let nats = try await TestNATSServer.start()
        defer { nats.stop() }
        let gateway = try await StandaloneGateway.start(natsURL: nats.url) { $0.rateLimitRPS = 0 }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            let error = await #expect(throws: APIError.self) {
                try await makeClient(gateway.url).login(with: .google(idToken: "x.y.z"))
            }
            #expect(error?.code == .serviceUnavailable)
            #expect(error?.status == 503)
            #expect(error?.retryAfter == .seconds(1))
        }
    }

    @Test("429 RATE_LIMITED carries Retry-After")
    func rateLimited() async throws {
        _ = try await TestStack.shared.running()
        let gateway = try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL) {
            $0.rateLimitRPS = 1
            $0.rateLimitBurst = 1
        }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            let client = makeClient(gateway.url)
            var codes: [APIErrorCode] = []
            var retryAfter: Duration?
            for _ in 0..<3 {
                do {
                    try await client.login(with: .google(idToken: "x.y.z"))
                } catch let error as APIError {
                    codes.append(error.code)
                    if error.code == .rateLimited { retryAfter = error.retryAfter }
                }
            }
            #expect(codes.first == .invalidProviderToken)
            #expect(codes.contains(.rateLimited), "\(codes)")
            #expect((retryAfter ?? .zero) >= .seconds(1))
        }
    }

    @Test("an error status without the envelope is UNEXPECTED_RESPONSE with the status")
    func withoutEnvelope() async throws {
        let stack = try await TestStack.shared.running()
        let proxy = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
        defer { proxy.stop() }
        proxy.answer("POST /api/auth/google-login", status: 502, rawBody: "<html>Bad Gateway</html>")
        let error = await #expect(throws: APIError.self) {
            try await makeClient(proxy.url).login(with: .google(idToken: "x.y.z"))
        }
        #expect(error?.code == .unexpectedResponse)
        #expect(error?.status == 502)
    }

    @Test("no server at the address is a TransportError, not an APIError")
    func unreachable() async throws {
        let port = try TestNATSServer.freePort()
        let error = await #expect(throws: TransportError.self) {
            try await makeClient("http://127.0.0.1:\(port)").login(with: .google(idToken: "x.y.z"))
        }
        #expect(error?.isNetworkFailure == true)
    }

    @Test("a call that needs a user, without one, is ClientError.notSignedIn and sends nothing")
    func notSignedIn() async throws {
        let stack = try await TestStack.shared.running()
        let proxy = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
        defer { proxy.stop() }
        let client = makeClient(proxy.url)
        await #expect(throws: ClientError.notSignedIn) { try await client.me() }
        await #expect(throws: ClientError.notSignedIn) { try await client.refresh() }
        #expect(proxy.count("GET /api/members/me") == 0)
        #expect(proxy.count("POST /api/auth/refresh") == 0)
    }

    @Test("an empty provider token is refused before sending")
    func emptyToken() async throws {
        let client = makeClient("http://127.0.0.1:1")
        await #expect(throws: ClientError.self) { try await client.login(with: .kakao(idToken: "  ")) }
    }
}
