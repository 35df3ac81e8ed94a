import Contracts
import Foundation
import Synchronization
import Testing
import TestSupport

/// A refresh answered 200 is never lost when PostgreSQL crashes under a refresh load, and no session is left
/// with a token its app does not hold: the stack runs on a cluster of this suite's own (fsync on, as deployed),
/// which the test kills with SIGKILL and starts again while every app keeps refreshing.
@Suite("Refreshes survive PostgreSQL killed under load")
struct RefreshDurabilityTests {
    /// One app's session: the last refresh token it was answered with, and how its refreshes went.
    struct Chain: Sendable {
        var token: String
        var sessionId: String
        var answered = 0
        var failed = 0
        var answeredAfterRestart = 0
    }

    /// The apps' chains and the load's switches, shared by the workers.
    final class Load: Sendable {
        let chains: Mutex<[Chain]>
        let restarted = Atomic<Bool>(false)
        let stop = Atomic<Bool>(false)
        init(_ chains: [Chain]) { self.chains = Mutex(chains) }
    }

    @Test("every refresh answered 200 leaves its token working after the restart, and each session at the generation its app holds")
    func killedUnderLoad() async throws {
        let cluster = try await PostgresCluster.create()
        cluster.removeAtExit()
        try await cluster.start(durable: true)
        let stack = try await TestStack.isolated(databaseAdminURL: cluster.url).running()

        // Eight apps, two workers' worth each: the other suites share these two cores.
        var chains: [Chain] = []
        for app in 0..<8 {
            let login = try await stack.googleSession(deviceId: "durable-refresh-\(app)")
            chains.append(Chain(token: login.refreshToken, sessionId: try #require(Self.sessionId(of: login.accessToken))))
        }
        let load = Load(chains)
        let workers = (0..<chains.count).map { app in
            Task {
                // As an app does: refresh with the last token it was answered with; after a failure, send the same token
                // again (a refresh whose answer was lost replays inside the grace window). It stops only after a 200,
                // so its last token is the one its session holds.
                var lastFailed = false
                while !load.stop.load(ordering: .acquiring) || lastFailed {
                    let token = load.chains.withLock { $0[app].token }
                    let afterRestart = load.restarted.load(ordering: .acquiring)
                    let response = try? await stack.post("/api/auth/refresh", json: RefreshBody(refreshToken: token))
                    if let response, response.status == 200, let answer = try? response.data(LoginResponse.self) {
                        load.chains.withLock {
                            $0[app].token = answer.refreshToken
                            $0[app].answered += 1
                            if afterRestart { $0[app].answeredAfterRestart += 1 }
                        }
                        lastFailed = false
                    } else {
                        let status = response?.status ?? 0
                        load.chains.withLock { $0[app].failed += 1 }
                        // A refusal other than an outage would be lost work: the check below names it.
                        guard [0, 503, 504].contains(status) else {
                            Issue.record("app \(app): a refresh answered \(status) (\(response.map { String(decoding: $0.body, as: UTF8.self) } ?? ""))")
                            return
                        }
                        lastFailed = true
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
        }
        defer { load.stop.store(true, ordering: .releasing) }
        @Sendable func answered(afterRestart: Bool) -> Int {
            load.chains.withLock { $0.reduce(0) { $0 + (afterRestart ? $1.answeredAfterRestart : $1.answered) } }
        }

        try #require(await eventually(timeout: .seconds(30)) { answered(afterRestart: false) >= 200 }, "refreshes flow before the kill")
        try await cluster.kill()
        try await Task.sleep(for: .seconds(1))  // the server stays down a while
        try await cluster.start(durable: true)
        load.restarted.store(true, ordering: .releasing)
        #expect(await eventually(timeout: .seconds(45)) { answered(afterRestart: true) >= 200 },
                "refreshes succeed again after PostgreSQL is back")
        load.stop.store(true, ordering: .releasing)
        for worker in workers { await worker.value }

        let final = load.chains.withLock { $0 }
        print("refresh durability: \(final.reduce(0) { $0 + $1.answered }) refreshes answered 200, "
              + "\(final.reduce(0) { $0 + $1.failed }) failed during the outage, over \(final.count) sessions")
        #expect(final.contains { $0.failed > 0 }, "the crash was seen: refreshes failed while PostgreSQL was down")
        for (app, chain) in final.enumerated() {
            // The session is at the generation of the token its app holds: nothing rotated that no app was told of.
            let parts = chain.token.split(separator: ".")
            let generation = try #require(parts.count == 4 ? Int64(parts[1]) : nil, "app \(app): its token is no token by generation")
            let rows = try await stack.rows("SELECT generation::text AS g, (ended_at IS NULL)::text AS live FROM issuer.sessions WHERE id = \(unescaped: "'\(chain.sessionId)'")::uuid")
            #expect(rows.first?["g"] == String(generation) && rows.first?["live"] == "true", "app \(app): session row \(rows)")
            // And that token works: the app's next refresh after the crash.
            let next = try await stack.post("/api/auth/refresh", json: RefreshBody(refreshToken: chain.token))
            #expect(next.status == 200, "app \(app): its last token answered 200, then \(next.status) after the restart")
        }
    }

    /// The `sid` claim of an access token, read without checking the signature (the gateway checked it).
    static func sessionId(of accessToken: String) -> String? {
        LoginDurabilityTests.sessionId(of: accessToken)
    }
}
