// docs/quickstart.md's client configuration ("From an iOS app"), as it stands there: this file
// begins with that block, compiled with the client's tests, and the suite below checks that the
// two are the same.
// BEGIN client-configuration
import Foundation
import SocialLoginClient

enum Backend {
    /// The iOS Simulator, against `docker compose --profile dev up` or `deploy/local/up` on this Mac.
    static let simulator = URL(string: "http://localhost:8080")!
    /// A phone on the same Wi-Fi: the Mac's address (`ipconfig getifaddr en0`).
    static let phoneOnTheSameWiFi = URL(string: "http://192.168.1.20:8080")!
    /// A release build: your deployment, over https only.
    static let production = URL(string: "https://auth.example.com")!

    static var baseURL: URL {
        #if DEBUG
        #if targetEnvironment(simulator)
        return simulator
        #else
        return phoneOnTheSameWiFi
        #endif
        #else
        return production
        #endif
    }

    static func makeClient() -> AuthClient {
        var configuration = AuthClientConfiguration(baseURL: baseURL)
        // A local stack answers at once; a short timeout shows a stopped one sooner.
        #if DEBUG
        configuration.requestTimeout = .seconds(10)
        #endif
        #if canImport(Security)
        let tokenStore: any TokenStore = KeychainTokenStore(service: "com.example.MyApp")
        #else
        let tokenStore: any TokenStore = InMemoryTokenStore()   // Linux, where this code is compiled in tests
        #endif
        return AuthClient(configuration: configuration, tokenStore: tokenStore)
    }
}
// END client-configuration

import Testing
import TestSupport

@Suite("docs/quickstart.md: the client configuration of \"From an iOS app\"")
struct QuickstartConfigurationTests {
    static let root = ConfigurationReference.repositoryRoot

    @Test("the block in docs/quickstart.md is the code at the top of this file, which compiles")
    func documentedCodeIsThisCode() throws {
        let document = try String(contentsOf: Self.root.appendingPathComponent("docs/quickstart.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let documented = try #require(document.components(separatedBy: "<!-- client-configuration -->\n```swift\n").dropFirst().first?
            .components(separatedBy: "```").first, "docs/quickstart.md has no client-configuration block")
        let compiled = try #require(source.components(separatedBy: "// BEGIN client-configuration\n").dropFirst().first?
            .components(separatedBy: "// END client-configuration").first)
        #expect(documented == compiled, "docs/quickstart.md and this file differ: copy the block here again")
    }

    @Test("the Simulator's base URL is the curl block's; a phone's is the Mac's address; a release build's is https")
    func baseURLs() throws {
        let document = try String(contentsOf: Self.root.appendingPathComponent("docs/quickstart.md"), encoding: .utf8)
        #expect(document.contains("<!-- simulator-curl -->\n```sh\nBASE=\(Backend.simulator.absoluteString)\n"))
        #expect(Backend.simulator.absoluteString == "http://localhost:8080")
        #expect(Backend.phoneOnTheSameWiFi.scheme == "http" && Backend.phoneOnTheSameWiFi.port == 8080)
        #expect(Backend.production.scheme == "https")
        // These tests build without the simulator: in debug the phone's URL, else the release one.
        #if DEBUG
        #expect(Backend.baseURL == Backend.phoneOnTheSameWiFi)
        #else
        #expect(Backend.baseURL == Backend.production)
        #endif
    }

    @Test("the client it makes talks to that base URL")
    func makesAClient() {
        let client = Backend.makeClient()
        #expect(client.configuration.baseURL == Backend.baseURL)
        #if DEBUG
        #expect(client.configuration.requestTimeout == .seconds(10))
        #endif
    }
}
