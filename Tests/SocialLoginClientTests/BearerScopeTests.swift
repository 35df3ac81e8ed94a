import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import SocialLoginClient
import Testing
import TestSupport

/// Where the access token goes, and how often a client may refresh.
@Suite("Bearer scope and refresh limit")
struct BearerScopeTests {
    /// A client of `signedIn`'s proxy with `configure` applied, reading the signed-in store.
    private func client(_ signedIn: SignedInClient, _ configure: (inout AuthClientConfiguration) -> Void) -> AuthClient {
        var configuration = AuthClientConfiguration(baseURL: URL(string: signedIn.proxy.url)!)
        configure(&configuration)
        return AuthClient(configuration: configuration, tokenStore: signedIn.store)
    }

    @Test("a request to another origin goes out without the token, and its 401 starts no refresh; an allowed origin gets it")
    func foreignOrigin() async throws {
        try await withSignedInClient { stack, signedIn in
            // Another origin: the same host on another port.
            let elsewhere = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
            defer { elsewhere.stop() }
            elsewhere.answer("GET /their/api", status: 401, code: "UNAUTHORIZED")
            let request = URLRequest(url: URL(string: elsewhere.url + "/their/api")!)

            let (_, response) = try await signedIn.client.authorizedData(for: request)
            #expect(response.statusCode == 401)
            #expect(elsewhere.authorizations("GET /their/api") == [""], "no Authorization header")
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 0)

            // Allowed by the app: the token goes, and the 401 is retried once after a refresh.
            let allowing = client(signedIn) { $0.authorizedOrigins = [URL(string: elsewhere.url + "/any/path")!] }
            _ = try await allowing.authorizedData(for: request)
            let token = try #require(await signedIn.store.loadTokens()).accessToken
            #expect(elsewhere.authorizations("GET /their/api").dropFirst().allSatisfy { $0.hasPrefix("Bearer ") })
            #expect(elsewhere.authorizations("GET /their/api").last == "Bearer \(token)")
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
        }
    }

    @Test("a redirect from the API to another origin goes there without the token")
    func redirectElsewhere() async throws {
        try await withSignedInClient { stack, signedIn in
            let elsewhere = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
            defer { elsewhere.stop() }
            elsewhere.answer("GET /landing", status: 200, rawBody: "landed")
            signedIn.proxy.answer("GET /app/moved", status: 302, headers: [("Location", elsewhere.url + "/landing")])
            signedIn.proxy.answer("GET /app/here", status: 302, headers: [("Location", signedIn.proxy.url + "/app/final")])
            signedIn.proxy.answer("GET /app/final", status: 200, rawBody: "final")

            let (_, response) = try await signedIn.client.authorizedData(for: URLRequest(url: URL(string: signedIn.proxy.url + "/app/moved")!))
            #expect(response.statusCode == 200)
            #expect(signedIn.proxy.authorizations("GET /app/moved").first?.hasPrefix("Bearer ") == true)
            #expect(elsewhere.authorizations("GET /landing") == [""], "the token stayed behind")
            // Within the origin it follows with the token.
            _ = try await signedIn.client.authorizedData(for: URLRequest(url: URL(string: signedIn.proxy.url + "/app/here")!))
            #expect(signedIn.proxy.authorizations("GET /app/final").first?.hasPrefix("Bearer ") == true)
        }
    }

    @Test("an origin is scheme, host and port: the default port is the same origin, another scheme or port is not")
    func origins() {
        var configuration = AuthClientConfiguration(baseURL: URL(string: "https://Auth.Example.com/base")!)
        configuration.authorizedOrigins = [URL(string: "https://api.example.com:8443")!]
        let allowed = ["https://auth.example.com/api/x", "https://AUTH.example.com:443/y", "https://api.example.com:8443/z"]
        let refused = ["http://auth.example.com/api/x", "https://auth.example.com:8443/x", "https://api.example.com/z",
                       "https://auth.example.com.evil.example/x", "https://evil.example/auth.example.com", "file:///etc/passwd"]
        for url in allowed { #expect(configuration.isAuthorizedOrigin(URL(string: url)), "\(url)") }
        for url in refused { #expect(!configuration.isAuthorizedOrigin(URL(string: url)), "\(url)") }
        #expect(!configuration.isAuthorizedOrigin(nil))
    }

    @Test("an API that answers 401 to every token gets at most the limit's refreshes, then a typed error; the user stays signed in")
    func refreshLimit() async throws {
        try await withSignedInClient { _, signedIn in
            signedIn.proxy.answer("GET /app/always401", status: 401, code: "UNAUTHORIZED")
            // A window a busy machine cannot outlast with three refreshes.
            let limited = client(signedIn) { $0.refreshLimit = RefreshLimit(count: 3, per: .seconds(30)) }
            let request = URLRequest(url: URL(string: signedIn.proxy.url + "/app/always401")!)

            for _ in 0..<3 {
                let (_, response) = try await limited.authorizedData(for: request)
                #expect(response.statusCode == 401)
            }
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 3)
            await #expect(throws: ClientError.refreshLimitReached) { try await limited.authorizedData(for: request) }
            await #expect(throws: ClientError.refreshLimitReached) { try await limited.refresh() }
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 3, "none sent beyond the limit")
            #expect(try await limited.me().memberId == signedIn.memberId, "still signed in, the last tokens good")

            // A short window of one: refused within it (unless the refresh itself outlasted it), allowed after it.
            let short = client(signedIn) { $0.refreshLimit = RefreshLimit(count: 1, per: .seconds(2)) }
            let started = ContinuousClock.now
            try await short.refresh()
            do {
                try await short.refresh()
                #expect(ContinuousClock.now - started >= .seconds(2), "a second refresh within the window")
            } catch let error as ClientError {
                #expect(error == .refreshLimitReached)
            }
            try await Task.sleep(until: started + .milliseconds(2100))
            try await short.refresh()
            #expect(signedIn.proxy.count("POST /api/auth/refresh") >= 5, "a new window allows refreshes again")
        }
    }

    @Test("refreshes that never reached the server (offline) do not count against the limit")
    func offlineNotCounted() async throws {
        try await withSignedInClient { stack, signedIn in
            let proxy = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
            let port = try #require(URL(string: proxy.url)?.port)
            var configuration = AuthClientConfiguration(baseURL: URL(string: proxy.url)!)
            configuration.refreshLimit = RefreshLimit(count: 1, per: .seconds(60))
            let limited = AuthClient(configuration: configuration, tokenStore: signedIn.store)
            #expect(try await limited.me().memberId == signedIn.memberId)

            proxy.stop()
            await #expect(throws: TransportError.self) { try await limited.refresh() }
            await #expect(throws: TransportError.self) { try await limited.refresh() }
            let back = try GatewayProxy.start(forwardingTo: stack.gatewayURL, port: port)
            defer { back.stop() }
            try await limited.refresh()
            #expect(back.count("POST /api/auth/refresh") == 1, "the two offline attempts did not use up the window")
            await #expect(throws: ClientError.refreshLimitReached) { try await limited.refresh() }
        }
    }
}
