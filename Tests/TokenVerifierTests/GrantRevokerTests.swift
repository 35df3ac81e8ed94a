import Contracts
import Crypto
import Logging
import Synchronization
import Testing
@testable import TokenVerifier

/// The revocation of a deleted member's grants (`GrantRevoker`) with Apple's and Naver's endpoints stood in for:
/// which endpoint gets which credential, and when a grant is done or tried again, in milliseconds.
@Suite("Grant revocation: each provider's endpoint, with the credential sealed for that identity")
struct GrantRevokerTests {
    /// Apple's and Naver's endpoints in one: answers as told, records what it was asked.
    private final class Endpoints: AppleTokenEndpoint, NaverTokenEndpoint {
        let answer: RevocationOutcome
        let asked = Mutex<[String]>([])

        init(answer: RevocationOutcome) { self.answer = answer }

        var calls: [String] { asked.withLock { $0 } }

        func exchange(code: String, clientID: String) async -> AppleCodeExchange { .notGranted }

        func revoke(refreshToken: String, clientID: String) async -> RevocationOutcome {
            asked.withLock { $0.append("apple \(clientID) \(refreshToken)") }
            return answer
        }

        func deleteToken(_ accessToken: String) async -> RevocationOutcome {
            asked.withLock { $0.append("naver \(accessToken)") }
            return answer
        }
    }

    private let sealer = CredentialSealer(key: SecureRandom.bytes(32))
    private let logger = Logger(label: "revocation-test", level: .critical)

    private func grant(_ provider: Provider, subject: String = "s", token: String, sealedFor sealedSubject: String? = nil) throws -> ProviderGrant {
        let sealed = try sealer.seal(ProviderCredential(clientId: "app", token: token), provider: provider, subject: sealedSubject ?? subject)
        return ProviderGrant(provider: provider, subject: subject, sealedCredential: sealed)
    }

    @Test("Apple's grant goes to Apple's revoke with its client ID, Naver's to Naver's token delete; their answer is the outcome",
          arguments: [RevocationOutcome.done, .retry])
    func eachProvider(_ answer: RevocationOutcome) async throws {
        let endpoints = Endpoints(answer: answer)
        let revoker = GrantRevoker(sealer: sealer, apple: endpoints, naver: endpoints, logger: logger)
        #expect(await revoker.revoke(try grant(.apple, token: "apple-refresh")) == answer)
        #expect(await revoker.revoke(try grant(.naver, token: "naver-access")) == answer)
        #expect(endpoints.calls == ["apple app apple-refresh", "naver naver-access"])
    }

    @Test("a grant that can never be revoked here is done without a call: another provider, no key, no endpoint, or another identity's credential")
    func neverRevocable() async throws {
        let endpoints = Endpoints(answer: .retry)
        let full = GrantRevoker(sealer: sealer, apple: endpoints, naver: endpoints, logger: logger)
        #expect(await full.revoke(try grant(.google, token: "t")) == .done)
        #expect(await full.revoke(try grant(.apple, subject: "s", token: "t", sealedFor: "another")) == .done)
        #expect(await GrantRevoker(sealer: nil, apple: endpoints, naver: endpoints, logger: logger).revoke(try grant(.apple, token: "t")) == .done)
        #expect(await GrantRevoker(sealer: sealer, apple: nil, naver: nil, logger: logger).revoke(try grant(.naver, token: "t")) == .done)
        #expect(endpoints.calls.isEmpty)
    }
}
