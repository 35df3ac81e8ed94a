import Contracts
import Foundation
import JOSE
import Testing
import TestSupport

/// Mutated tokens through the gateway: never a 5xx, never a login.
@Suite("Verifier fuzzing through the gateway")
struct VerifierFuzzTests {
    @Test("300 mutated Google tokens: each a 4xx with the envelope, none accepted")
    func mutatedTokens() async throws {
        let stack = try await TestStack.shared.running()
        let valid = try await stack.idToken("google", sub: RunningStack.uniqueSubject())
        var generator = SystemRandomNumberGenerator()
        var statuses: [Int: Int] = [:]
        let mutations = (0..<300).map { Self.mutate(valid, index: $0, using: &generator) }.filter { $0 != valid }
        // Eight at a time: the point is every answer, not load.
        for batch in stride(from: 0, to: mutations.count, by: 8) {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for mutated in mutations[batch..<min(batch + 8, mutations.count)] {
                    group.addTask {
                        let response = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: mutated, deviceId: "fuzz"))
                        return (response.status, response.failure?.code.rawValue ?? response.text)
                    }
                }
                for try await (status, code) in group {
                    statuses[status, default: 0] += 1
                    #expect((400..<500).contains(status), "status \(status): \(code)")
                    #expect(code == "INVALID_PROVIDER_TOKEN" || code == "INVALID_REQUEST", "code \(code)")
                }
            }
        }
        #expect(statuses[200] == nil)
    }

    private static func mutate(_ token: String, index: Int, using generator: inout SystemRandomNumberGenerator) -> String {
        var bytes = Array(token.utf8)
        let parts = token.split(separator: ".").map(String.init)
        switch index % 5 {
        case 0:
            let at = Int.random(in: 0..<bytes.count, using: &generator)
            bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<7, using: &generator)
            return String(decoding: bytes, as: UTF8.self)
        case 1:
            return String(decoding: bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)), as: UTF8.self)
        case 2:
            let header = #"{"alg":"RS256","kid":"\#(UUID().uuidString)"}"#
            return ([Base64URL.encode(Array(header.utf8))] + parts.dropFirst()).joined(separator: ".")
        case 3:
            guard var payload = Base64URL.decode(parts[1]) else { return "x" }
            payload[Int.random(in: 0..<payload.count, using: &generator)] ^= 0x20
            return [parts[0], Base64URL.encode(payload), parts[2]].joined(separator: ".")
        default:
            return [parts[1], parts[0], parts[2]].joined(separator: ".")
        }
    }
}
