import DevIDP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSON
import SocialLoginClient
import Testing
import TestSupport

/// A client of the gateway at `baseURL` (the stack's, or a proxy's in front of it).
func makeClient(_ baseURL: String, store: any TokenStore = InMemoryTokenStore(),
                deviceId: String? = nil) -> AuthClient {
    var configuration = AuthClientConfiguration(baseURL: URL(string: baseURL)!)
    configuration.timezone = "Asia/Seoul"
    configuration.locale = "ko-KR"
    return AuthClient(configuration: configuration, tokenStore: store,
                      deviceIdentifier: deviceId.map { FixedDeviceIdentifier($0) })
}

/// A client behind its own proxy, signed in with a fresh Google identity; the proxy's counts
/// start at zero after the login.
struct SignedInClient {
    let client: AuthClient
    let store: InMemoryTokenStore
    let proxy: GatewayProxy
    let sub: String
    let memberId: Int64

    static func make(_ stack: RunningStack, deviceId: String? = nil) async throws -> SignedInClient {
        // The login goes straight to the gateway so the proxy counts only what the test does.
        let store = InMemoryTokenStore()
        let sub = RunningStack.uniqueSubject()
        let result = try await makeClient(stack.gatewayURL, store: store, deviceId: deviceId)
            .login(with: .google(idToken: try await stack.googleToken(sub: sub)))
        let proxy = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
        // A second client on the same store, as after an app restart, talking through the proxy.
        let client = makeClient(proxy.url, store: store, deviceId: deviceId)
        return SignedInClient(client: client, store: store, proxy: proxy, sub: sub, memberId: result.memberId)
    }

    /// Replaces the stored access token with one the gateway refuses (as an expired one would be),
    /// and returns a client that reads the store afresh.
    func withRefusedAccessToken(deviceId: String? = nil) async throws -> AuthClient {
        var tokens = try #require(await store.loadTokens())
        tokens.accessToken = "refused.access.token"
        await store.saveTokens(tokens)
        return makeClient(proxy.url, store: store, deviceId: deviceId)
    }
}

/// Runs `body` with the shared stack and a client signed in behind its own proxy (``SignedInClient/make(_:deviceId:)``),
/// then stops the proxy: where most tests of the client start.
func withSignedInClient(deviceId: String? = nil, _ body: (RunningStack, SignedInClient) async throws -> Void) async throws {
    let stack = try await TestStack.shared.running()
    let signedIn = try await SignedInClient.make(stack, deviceId: deviceId)
    defer { signedIn.proxy.stop() }
    try await body(stack, signedIn)
}

extension RunningStack {
    /// A Sign in with Apple identity token from the dev IdP.
    func appleToken(sub: String, nonce: String? = nil) async throws -> String {
        var claims: [String: JSONValue] = ["sub": .string(sub), "aud": .string(TestStack.ClientID.apple),
                                           "email": .string("\(sub)@privaterelay.example.com"),
                                           "email_verified": .string("true"), "is_private_email": .bool(true)]
        if let nonce { claims["nonce"] = .string(nonce) }
        return try await mint("apple", MintRequest(claims: claims))
    }

    /// A Kakao ID token from the dev IdP (the stack's Kakao takes the raw nonce in the token).
    func kakaoToken(sub: String, nonce: String? = nil) async throws -> String {
        var claims: [String: JSONValue] = ["sub": .string(sub), "aud": .string(TestStack.ClientID.kakao)]
        if let nonce { claims["nonce"] = .string(nonce) }
        return try await mint("kakao", MintRequest(claims: claims))
    }
}

/// The next `count` elements of a stream (states, events), or those that came within `timeout`.
func collect<Element: Sendable>(_ stream: AsyncStream<Element>, count: Int, timeout: Duration = .seconds(10)) async -> [Element] {
    let collector = Task {
        var elements: [Element] = []
        // Iteration ends when the task is cancelled.
        for await element in stream {
            elements.append(element)
            if elements.count == count { break }
        }
        return elements
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        collector.cancel()
    }
    let elements = await collector.value
    timer.cancel()
    return elements
}
