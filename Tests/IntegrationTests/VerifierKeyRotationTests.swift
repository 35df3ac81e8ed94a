import Contracts
import DevIDP
import Foundation
import JOSE
import JSON
import Logging
import Messaging
import NATS
import Testing
import TestSupport
import TokenVerifier

/// Key rotation at the issuer and the refetch limit, on a token-verifier and dev-idp of this suite's
/// own, reached over a nats-server of its own. On the shared stack, other suites' Kakao tokens met
/// the rotated key and spent the verifier's one refetch per 30 s that this suite counts on.
/// In order: the rotation needs the refetch budget.
@Suite("Verifier key rotation and refetch limit", .serialized)
struct VerifierKeyRotationTests {
    /// The suite's verifier, started once and kept until the process exits.
    private static let verifier = IsolatedVerifier()

    private actor IsolatedVerifier {
        private var started: Task<(ServiceClient, DevIdentityProvider), any Error>?

        func running() async throws -> (ServiceClient, DevIdentityProvider) {
            if let started { return try await started.value }
            let task = Task { try await Self.start() }
            started = task
            return try await task.value
        }

        private static func start() async throws -> (ServiceClient, DevIdentityProvider) {
            let logger = Logger(label: "rotation-suite", level: .error)
            let nats = try await TestNATSServer.start(jetStream: true)
            let (ready, signal) = AsyncStream<DevIdentityProvider>.makeStream()
            var idpConfiguration = DevIDPConfiguration()
            idpConfiguration.port = 0
            let idpServer = DevIDPServer(configuration: idpConfiguration, logger: logger, handlersOnItsThread: true) { _, idp in signal.yield(idp) }
            Task { try? await idpServer.run() }
            var iterator = ready.makeAsyncIterator()
            let idp = try #require(await iterator.next(), "the suite's dev-idp did not start")

            var configuration = TokenVerifierConfiguration()
            configuration.natsURL = nats.url
            configuration.natsAccess = TestIdentities.access(for: .tokenVerifier)
            // Kakao for the rotation, Google for the flood: each provider's key set has a refetch budget of its own.
            configuration.providers = [
                .kakao: OIDCProviderConfiguration(provider: .kakao, clientIDs: [TestStack.ClientID.kakao],
                                                  issuers: [idp.issuer("kakao")], jwksURL: idp.jwksURL("kakao"), nonceMode: .raw),
                .google: OIDCProviderConfiguration(provider: .google, clientIDs: [TestStack.ClientID.googleIOS],
                                                   issuers: [idp.issuer("google")], jwksURL: idp.jwksURL("google")),
            ]
            let verifierServer = TokenVerifierServer(configuration: configuration, logger: logger)
            Task { try? await verifierServer.run() }
            let connection = try await NATSConnection.connect(TestIdentities.configuration(url: nats.url, name: "rotation-suite"), logger: logger)
            let client = ServiceClient(connection: connection, logger: logger)
            // Ready once the verifier answers.
            let up = await eventually(timeout: .seconds(30)) {
                (try? await client.call(Endpoints.ping(QueueGroups.tokenVerifier), PingRequest(), timeout: .seconds(1))) != nil
            }
            try #require(up, "the suite's token-verifier did not answer")
            return (client, idp)
        }
    }

    private func token(_ idp: DevIdentityProvider, _ provider: Provider = .kakao,
                       header: [String: JSONValue]? = nil) async throws -> String {
        let sub = RunningStack.uniqueSubject(provider.rawValue.lowercased())
        let audience = provider == .kakao ? TestStack.ClientID.kakao : TestStack.ClientID.googleIOS
        let claims: [String: JSONValue] = ["sub": .string(sub), "aud": .string(audience)]
        return try #require(try await idp.mint(provider.rawValue.lowercased(), MintRequest(claims: claims, header: header)))
    }

    private func verify(_ client: ServiceClient, _ token: String,
                        _ provider: Provider = .kakao) async -> Result<VerifiedIdentity, ServiceFailure> {
        do {
            return .success(try await client.call(Endpoints.verify, VerifyRequest(provider: provider, token: token), timeout: .seconds(10)))
        } catch {
            return .failure(error)
        }
    }

    @Test("a token signed with a key rotated in at the issuer is accepted without restarting anything")
    func rotation() async throws {
        let (client, idp) = try await Self.verifier.running()
        _ = try await verify(client, try await token(idp)).get()
        let before = await idp.jwksFetches()["kakao"] ?? 0
        let kid = try #require(try await idp.rotate("kakao"))
        let rotated = try await token(idp)
        #expect(try CompactJWS.parse(rotated).header.kid == kid)
        _ = try await verify(client, rotated).get()
        #expect((await idp.jwksFetches()["kakao"] ?? 0) - before == 1, "one refetch found the new key")
    }

    @Test("a flood of tokens with random kids causes one key-set fetch, not one each")
    func flood() async throws {
        let (client, idp) = try await Self.verifier.running()
        // Google's key set loaded, and its refetch budget unspent (nothing else here asks Google).
        _ = try await verify(client, try await token(idp, .google), .google).get()
        let before = await idp.jwksFetches()["google"] ?? 0
        for _ in 0..<10 {
            await withTaskGroup(of: Result<VerifiedIdentity, ServiceFailure>?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        guard let forged = try? await token(idp, .google, header: ["kid": .string(UUID().uuidString)]) else {
                            return nil
                        }
                        return await verify(client, forged, .google)
                    }
                }
                for await result in group {
                    if case .failure(let failure)? = result {
                        #expect(failure.code == .invalidProviderToken, "\(failure)")
                    } else {
                        Issue.record("a token with an unknown kid was not refused: \(String(describing: result))")
                    }
                }
            }
        }
        // The first unknown kid spends the window's one refetch; the other 199 wait for it or are refused.
        #expect((await idp.jwksFetches()["google"] ?? 0) - before == 1)
    }
}
