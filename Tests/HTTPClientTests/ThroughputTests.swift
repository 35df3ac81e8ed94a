import Foundation
import HTTPClient
import Testing

/// Throughput against a fast server named by `HTTPCLIENT_BENCH_URL` (the Python server is too slow to measure
/// the client); run on demand: `HTTPCLIENT_BENCH_URL=http://127.0.0.1:PORT/ swift test --filter ThroughputTests`.
@Suite("Throughput", .serialized, .enabled(if: ProcessInfo.processInfo.environment["HTTPCLIENT_BENCH_URL"] != nil))
struct ThroughputTests {
    private let url = ProcessInfo.processInfo.environment["HTTPCLIENT_BENCH_URL"] ?? ""

    @Test("Sequential requests on one connection", arguments: [20_000])
    func sequential(count: Int) async throws {
        try await withClient { client in
            _ = try await client.execute(HTTPClientRequest(url: url))
            let measured = try await measure(count: count) {
                for _ in 0..<count {
                    let response = try await client.execute(HTTPClientRequest(url: url))
                    guard response.status == 200 else { return false }
                }
                return true
            }
            #expect(measured.ok)
            print("sequential: \(measured.summary)")
            #expect(measured.perSecond > 1_000)
        }
    }

    @Test("32 concurrent callers", arguments: [50_000])
    func concurrent(count: Int) async throws {
        try await withClient { client in
            let callers = 32
            let measured = try await measure(count: count) {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<callers {
                        group.addTask {
                            for _ in 0..<(count / callers) {
                                guard try await client.execute(HTTPClientRequest(url: url)).status == 200 else { return false }
                            }
                            return true
                        }
                    }
                    return try await group.allSatisfy { $0 }
                }
            }
            #expect(measured.ok)
            print("32 concurrent: \(measured.summary)")
            #expect(measured.perSecond > 1_000)
        }
    }

    private struct Measured {
        let ok: Bool
        let perSecond: Double
        let summary: String
    }

    private func measure(count: Int, _ body: () async throws -> Bool) async throws -> Measured {
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        let ok = try await body()
        let wall = seconds(since: start)
        let cpu = cpuSeconds() - cpuBefore
        let perSecond = Double(count) / wall
        let summary = String(format: "%d requests in %.2f s: %.0f requests/s, %.2f cores, %.1f µs CPU a request",
                             count, wall, perSecond, cpu / wall, cpu / Double(count) * 1e6)
        return Measured(ok: ok, perSecond: perSecond, summary: summary)
    }

    private func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
