import Contracts
import Foundation
import Postgres
import Synchronization
import Testing
import TestSupport

/// A login answered 200 is never lost, and its events are published exactly once, when PostgreSQL
/// crashes under a login load: the stack runs on a cluster of this suite's own (fsync on, as deployed),
/// which the test kills with SIGKILL and starts again while logins keep coming.
@Suite("Logins survive PostgreSQL killed under load")
struct LoginDurabilityTests {
    /// What one login attempt was answered.
    struct Answer: Sendable {
        let status: Int
        let memberId: Int64?
        let sessionId: String?
        let afterRestart: Bool
    }

    /// The load's answers and its two switches, shared by the workers.
    final class Load: Sendable {
        let answers = Mutex<[Answer]>([])
        let restarted = Atomic<Bool>(false)
        let stop = Atomic<Bool>(false)
    }

    @Test("every login answered 200 has its member and session after the restart, and the stream one member.created per member")
    func killedUnderLoad() async throws {
        // The stack lives until the test process exits (as every isolated one): so does its database server.
        let cluster = try await PostgresCluster.create()
        cluster.removeAtExit()
        try await cluster.start(durable: true)
        let stack = try await TestStack.isolated(databaseAdminURL: cluster.url).running()

        let load = Load()
        // Four workers: the other suites share these two cores.
        let workers = (0..<4).map { worker in
            Task {
                var attempt = 0
                while !load.stop.load(ordering: .acquiring) {
                    attempt += 1
                    let afterRestart = load.restarted.load(ordering: .acquiring)
                    let answer: Answer
                    do {
                        let response = try await stack.googleLogin(sub: "durable-\(worker)-\(attempt)-\(UUID().uuidString.prefix(8))")
                        if response.status == 200, let login = try? response.data(LoginResponse.self) {
                            answer = Answer(status: 200, memberId: login.memberId, sessionId: Self.sessionId(of: login.accessToken),
                                            afterRestart: afterRestart)
                        } else {
                            answer = Answer(status: response.status, memberId: nil, sessionId: nil, afterRestart: afterRestart)
                        }
                    } catch {
                        answer = Answer(status: 0, memberId: nil, sessionId: nil, afterRestart: afterRestart)
                        try? await Task.sleep(for: .milliseconds(50))  // a pause after a failed login, as a client makes
                    }
                    load.answers.withLock { $0.append(answer) }
                }
            }
        }
        // However the test ends, the workers stop.
        defer { load.stop.store(true, ordering: .releasing) }
        @Sendable func succeeded(afterRestart: Bool) -> Int {
            load.answers.withLock { $0.filter { $0.status == 200 && $0.afterRestart == afterRestart }.count }
        }

        // Mid-load: once logins are flowing, kill the server as a crash would, and start it again a second later.
        try #require(await eventually(timeout: .seconds(30)) { succeeded(afterRestart: false) >= 100 }, "logins flow before the kill")
        try await cluster.kill()
        try await Task.sleep(for: .seconds(1))  // the server stays down a while
        try await cluster.start(durable: true)
        load.restarted.store(true, ordering: .releasing)
        #expect(await eventually(timeout: .seconds(45)) { succeeded(afterRestart: true) >= 100 },
                "logins succeed again after PostgreSQL is back")
        load.stop.store(true, ordering: .releasing)
        for worker in workers { await worker.value }

        let all = load.answers.withLock { $0 }
        let ok = all.filter { $0.status == 200 }
        let refused = all.filter { $0.status != 200 }
        print("durability: \(all.count) logins, \(ok.count) answered 200 (\(ok.filter(\.afterRestart).count) after the restart), "
              + "others by status: \(Dictionary(grouping: refused, by: \.status).mapValues(\.count))")
        #expect(refused.contains { $0.status == 503 }, "the crash was seen: logins answered 503 while PostgreSQL was down")
        #expect(refused.allSatisfy { [0, 503, 504].contains($0.status) }, "a failed login is a 503 or 504 (or a dropped connection), never another code")

        // Every 200: its member and its session are in the database.
        let members = Set(ok.compactMap(\.memberId))
        let sessions = Set(ok.compactMap(\.sessionId))
        #expect(members.count == ok.count && sessions.count == ok.count, "each 200 carried a new member and a session ID")
        let memberList = members.map(String.init).joined(separator: ",")
        let sessionList = sessions.joined(separator: ",")
        #expect(try await stack.count("SELECT count(*)::text FROM member.members WHERE id = ANY(\(unescaped: "'{\(memberList)}'")::bigint[])")
                == members.count)
        #expect(try await stack.count("SELECT count(*)::text FROM issuer.sessions WHERE id = ANY(\(unescaped: "'{\(sessionList)}'")::uuid[])")
                == sessions.count)

        // The outboxes drain. Rows whose delete the crash cut off stay leased and go again once the lease
        // (Outbox.lease, 30 s) runs out: JetStream drops those copies by event ID, which the count below shows.
        #expect(try await eventually(timeout: .seconds(50)) {
            try await stack.count("SELECT ((SELECT count(*) FROM member.outbox) + (SELECT count(*) FROM issuer.outbox))::text") == 0
        }, "the outboxes drained")

        // The stream: one member.created per member in the database (a 200 or not), none missing, none twice.
        let stored = try await stack.rows("SELECT id::text FROM member.members")
        let created = Set(stored.compactMap { $0["id"].flatMap(Int64.init) })
        #expect(created.isSuperset(of: members))
        _ = try await stack.events(Events.memberCreated, timeout: .seconds(30), count: created.count) { _ in true }
        try await Task.sleep(for: .seconds(2))  // a fixed window is the check: time for a duplicate to arrive, were one published
        let events = try await stack.events(Events.memberCreated, timeout: .zero) { _ in true }
        let eventMembers = events.map(\.data.memberId)
        #expect(Set(eventMembers) == created, "a member.created for every member and for no other")
        #expect(eventMembers.count == created.count, "no member.created stored twice")
        #expect(Set(events.map(\.id)).count == events.count)
    }

    /// The `sid` claim of an access token (the session it belongs to), read without checking the
    /// signature: the gateway checked it, and here it only names a row.
    static func sessionId(of accessToken: String) -> String? {
        let parts = accessToken.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let sid = claims["sid"] as? String, UUID(uuidString: sid) != nil else { return nil }
        return sid
    }
}
