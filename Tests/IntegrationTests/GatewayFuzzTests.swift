import Collections
import Contracts
import Foundation
import HTTPTesting
import Testing
import TestSupport

/// Random bytes at the gateway's edge, over raw sockets: in methods, paths, header names and values,
/// control characters in JSON string fields, and request lines with nothing to split. Every answer is a
/// 4xx, never a 5xx; the gateway stays up and nothing changes. The cases come from a seed, printed,
/// which `EDGE_FUZZ_SEED` (hexadecimal) sets to replay a failure or to try others.
@Suite("Gateway edge fuzzing")
struct GatewayFuzzTests {
    static let defaultSeed: UInt64 = 0x5EED_ED6E

    @Test("3,000 random requests get a 4xx (400 for a control character in a JSON string; a closed connection for a request line libmicrohttpd cannot split), never a 5xx; the gateway stays up and the member is unchanged")
    func fuzz() async throws {
        let seed = ProcessInfo.processInfo.environment["EDGE_FUZZ_SEED"].flatMap { UInt64($0, radix: 16) } ?? Self.defaultSeed
        let seedText = String(seed, radix: 16)
        print("edge fuzz seed: \(seedText) (EDGE_FUZZ_SEED=\(seedText) replays it)")
        let stack = try await TestStack.shared.running()
        let login = try await stack.googleSession(sub: RunningStack.uniqueSubject("fuzz"))
        let before = try await stack.get("/api/members/me", bearer: login.accessToken)
        #expect(before.status == 200)
        let gateway = try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL) { $0.rateLimitRPS = 0 }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            #expect(await eventually(timeout: .seconds(10)) { (try? await RunningStack.send("GET", gateway.url + "/readyz"))?.status == 200 })

            let serverErrorsBefore = try await Self.serverErrors(gateway)
            var generator = EdgeFuzzCases(seed: seed, bearer: login.accessToken)
            let cases = generator.make(count: 3_000)
            let port = gateway.port
            let answers = try await BlockingCall.run { cases.map { Self.exchange($0.bytes, port: port) } }
            var failures: [String] = []
            for (index, (fuzzCase, answer)) in zip(cases, answers).enumerated() {
                switch answer {
                case .success(let status) where fuzzCase.expectation.accepts(status):
                    continue
                case .success(let status):
                    failures.append("#\(index) \(fuzzCase.kind): \(status.map(String.init) ?? "closed unanswered"), expected \(fuzzCase.expectation)"
                                    + " for \(Self.escaped(fuzzCase.bytes))")
                case .failure(let error):
                    failures.append("#\(index) \(fuzzCase.kind): \(error) for \(Self.escaped(fuzzCase.bytes))")
                }
            }
            #expect(failures.isEmpty, "seed \(seedText): \(failures.count) of \(cases.count) cases failed; the first: \(failures.prefix(5).joined(separator: "\n"))")
            let kinds = Dictionary(grouping: cases) { $0.kind.split(separator: " ").first.map(String.init) ?? "" }.mapValues(\.count)
            print("edge fuzz cases by kind: \(kinds.sorted { $0.key < $1.key })")

            // Still up, with no 5xx counted, and nothing changed.
            #expect(try await RunningStack.send("GET", gateway.url + "/healthz").status == 200)
            #expect(try await RunningStack.send("GET", gateway.url + "/readyz").status == 200)
            #expect(try await Self.serverErrors(gateway) == serverErrorsBefore, "a 5xx was counted")
            let after = try await stack.get("/api/members/me", bearer: login.accessToken)
            #expect(after.status == 200)
            #expect(after.body == before.body)
        }
    }

    /// The gateway's `http_requests_total` series with a 5xx status (a `/readyz` polled before the gateway was ready has one).
    private static func serverErrors(_ gateway: StandaloneGateway) async throws -> [Substring] {
        try await RunningStack.send("GET", gateway.managementURL + "/metrics").text.split(separator: "\n")
            .filter { $0.hasPrefix("http_requests_total{") && $0.contains(#"status="5"#) }
    }

    /// Sends one case on a fresh connection: the answer's status, nil when the server closed the connection
    /// without answering, or the failure (no answer within 10 s).
    private static func exchange(_ bytes: [UInt8], port: Int) -> Result<Int?, RawHTTPConnection.Failure> {
        do {
            let connection = try RawHTTPConnection(port: port, readTimeoutSeconds: 10)
            // The server may answer and close before reading it all (413, a refused header): read the answer anyway.
            try? connection.send(bytes)
            return .success(try connection.readStatusOrClose())
        } catch let failure as RawHTTPConnection.Failure {
            return .failure(failure)
        } catch {
            return .failure(RawHTTPConnection.Failure(description: "\(error)"))
        }
    }

    /// The bytes with everything but printable ASCII escaped, for a failure message.
    private static func escaped(_ bytes: [UInt8]) -> String {
        bytes.prefix(300).map { (0x20..<0x7F).contains($0) && $0 != 0x5C ? String(UnicodeScalar($0)) : String(format: "\\x%02x", $0) }.joined()
    }
}
