import Foundation
import Logging
import NATS
import Testing
import TestSupport

/// nats-server 2.9 (Debian 12's) lists a stream being created before its store exists; a
/// `STREAM.MSG.GET` in that window kills the server (a nil store, fixed in 2.9.15). The gateway's
/// ended-session follower starts while a service may be creating the stream, so following must not
/// send that request to a stream that may still be in the window. Seen once: a `deploy/local/up` whose
/// nats-server died at start, with the panic in `jsMsgGetRequest`.
@Suite("Following a stream while it is created")
struct StreamCreationRaceTests {
    @Test("followers that start while the stream is being created leave the server alive")
    func followDuringCreation() async throws {
        let server = try await TestNATSServer.start(jetStream: true)
        defer { server.stop() }
        let logger = Logger(label: "stream-race", level: .critical)
        let creator = try await NATSConnection.connect(TestIdentities.configuration(url: server.url, name: "creator"), logger: logger)
        let follower = try await NATSConnection.connect(TestIdentities.configuration(url: server.url, name: "follower"), logger: logger)
        try await withResource(creator, close: { await $0.drainAndClose() }) { creator in
            try await withResource(follower, close: { await $0.drainAndClose() }) { follower in
                for round in 0..<20 {
                    let stream = "RACE_\(round)"
                    // Followers try again and again until the stream exists, so some land inside its creation.
                    let following = Task {
                        while !Task.isCancelled {
                            if let started = try? await follower.jetStream.follow(stream: stream, subject: "race.\(round).ended",
                                                                                  since: Date().addingTimeInterval(-60)) {
                                started.messages.unsubscribe()
                                return true
                            }
                        }
                        return false
                    }
                    defer { following.cancel() }
                    try await Task.sleep(for: .milliseconds(5))  // the follower starts first: the race this test stages
                    _ = try await creator.jetStream.ensureStream(name: stream, subjects: ["race.\(round).>"])
                    let followed = await withTaskGroup(of: Bool.self) { group in
                        group.addTask { await following.value }
                        group.addTask {
                            try? await Task.sleep(for: .seconds(10))
                            following.cancel()
                            return false
                        }
                        let first = await group.next() ?? false
                        group.cancelAll()
                        return first
                    }
                    #expect(server.isRunning, "nats-server died in round \(round)")
                    #expect(followed, "round \(round): following never started")
                    guard server.isRunning, followed else { return }
                }
            }
        }
    }
}
