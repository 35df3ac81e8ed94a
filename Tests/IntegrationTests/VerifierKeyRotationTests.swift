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
            let idpServer = DevIDPServer(configuration: idpConfiguration, logger: logger) { _, idp in signal.yield(idp) }
            Task { try? await idpServer.run() }
            var iterator = ready.makeAsyncIterator()
            let idp = try #require(await iterator.next(), "the suite's dev-idp did not start")

            var configuration = TokenVerifierConfiguration()
            configuration.natsURL = nats.url
            configuration.natsAccess = TestIdentities.access(for: .tokenVerifier)
            configuration.providers = [
                .kakao: OIDCProviderConfiguration(provider: .kakao, clientIDs: [TestStack.ClientID.kakao],
                                                  issuers: [idp.issuer("kakao")], jwksURL: idp.jwksURL("kakao"), nonceMode: .raw),
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

    private func token(_ idp: DevIdentityProvider, header: [String: JSONValue]? = nil) async throws -> String {
        let sub = RunningStack.uniqueSubject("kakao")
        let claims: [String: JSONValue] = ["sub": .string(sub), "aud": .string(TestStack.ClientID.kakao)]
        return try #require(try await idp.mint("kakao", MintRequest(claims: claims, header: header)))
    }

    private func verify(_ client: ServiceClient, _ token: String) async -> Result<VerifiedIdentity, ServiceFailure> {
        do {
            return .success(try await client.call(Endpoints.verify, VerifyRequest(provider: .kakao, token: token), timeout: .seconds(10)))
        } catch let failure as ServiceFailure {
            return .failure(failure)
        } catch {
            return .failure(ServiceFailure(.internal, String(describing: error)))
        }
    }

    @Test("a token signed with a key rotated in at the issuer is accepted without restarting anything")
    func rotation() async throws {
        let (client, idp) = try await Self.verifier.running()
        let first = await verify(client, try await token(idp))
        #expect((try? first.get()) != nil, "\(first)")
        let before = await idp.jwksFetches()["kakao"] ?? 0
        let kid = try #require(try await idp.rotate("kakao"))
        let rotated = try await token(idp)
        #expect(try CompactJWS.parse(rotated).header.kid == kid)
        let result = await verify(client, rotated)
        #expect((try? result.get()) != nil, "\(result)")
        #expect((await idp.jwksFetches()["kakao"] ?? 0) - before == 1, "one refetch found the new key")
    }

    @Test("a flood of tokens with random kids causes at most one key-set fetch")
    func flood() async throws {
        let (client, idp) = try await Self.verifier.running()
        let before = await idp.jwksFetches()["kakao"] ?? 0
        for _ in 0..<10 {
            await withTaskGroup(of: Result<VerifiedIdentity, ServiceFailure>?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        guard let forged = try? await token(idp, header: ["kid": .string(UUID().uuidString)]) else { return nil }
                        return await verify(client, forged)
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
        #expect((await idp.jwksFetches()["kakao"] ?? 0) - before <= 1)
    }
}
