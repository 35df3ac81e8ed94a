import Contracts
import Foundation
import Logging
import Messaging
import NATS
import Testing
import TestSupport

private struct Ask: Codable, Sendable { var n: Int }
private struct Answer: Codable, Sendable { var n: Int }

/// A NATS cluster of three loses one node at a time, as a production cluster does in a rolling
/// upgrade or a crash: calls keep being answered, and a follower of a replicated stream keeps
/// reading it. Each node is killed (SIGKILL) and started again before the next.
@Suite("A NATS cluster loses a node")
struct NATSClusterTests {
    let logger = Logger(label: "nats-cluster", level: .error)

    private func connect(_ cluster: TestNATSCluster, _ name: String) async throws -> NATSConnection {
        try await NATSConnection.connect(
            NATSConnection.Configuration(url: cluster.url, name: name, reconnectWait: .milliseconds(100), access: TestIdentities.tests),
            logger: logger)
    }

    @Test("calls through a service client are answered while each node in turn is down")
    func callsSurviveEachNode() async throws {
        let cluster = try await TestNATSCluster.start()
        defer { cluster.stop() }
        let endpoint = Endpoint<Ask, Answer>("test.cluster.\(RunningStack.uniqueSubject())")
        // Two responders and a caller, each on a node of the list's random order; across three kills
        // each of them loses its node at least once in most runs, and every run loses some node.
        var responders: [NATSConnection] = []
        var serving: [Task<Void, any Error>] = []
        for index in 1...2 {
            let connection = try await connect(cluster, "responder-\(index)")
            let responder = Responder(connection: connection, endpoint: endpoint, queue: "cluster-tests", logger: logger) { ask in
                Answer(n: ask.n * 2)
            }
            serving.append(Task { try await responder.run() })
            responders.append(connection)
        }
        let caller = try await connect(cluster, "caller")
        let client = ServiceClient(connection: caller, logger: logger)
        #expect(try await eventually(timeout: .seconds(10)) {
            (try? await client.call(endpoint, Ask(n: 0), timeout: .seconds(2)))?.n == 0
        })

        for node in cluster.nodes.indices {
            cluster.kill(node)
            // Calls while the clients of the lost node move to the others: none may fail.
            var answers: [Int] = []
            for n in 1...40 {
                answers.append(try await client.call(endpoint, Ask(n: n), timeout: .seconds(5), retries: 1).n)
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(answers == (1...40).map { $0 * 2 }, "with \(cluster.nodes[node].name) down")
            try await cluster.restart(node)
        }
        for task in serving { task.cancel() }
        for connection in responders + [caller] { await connection.drainAndClose() }
    }

    @Test("a follower of a stream on three nodes keeps reading while each node in turn is down, its leader first")
    func followerSurvivesEachNode() async throws {
        let cluster = try await TestNATSCluster.start()
        defer { cluster.stop() }
        let stream = "CLUSTER_EVENTS"  // the cluster is this test's own
        let subject = "cluster.ended"
        let publisher = try await connect(cluster, "publisher")
        _ = try await publisher.jetStream.ensureStream(name: stream, subjects: [subject], replicas: 3)
        _ = try await publisher.jetStream.publish(subject, Array("before".utf8), messageID: UUID().uuidString)

        // Following from a time, as the gateway follows `session.ended`: the first message is stored already.
        let follower = try await connect(cluster, "follower")
        let following = try await follower.jetStream.follow(stream: stream, subject: subject, since: Date(timeIntervalSinceNow: -60))
        #expect(await next(following.messages).map { String(decoding: $0.payload, as: UTF8.self) } == "before")

        let leader = await cluster.streamLeader(stream)
        let order = cluster.nodes.indices.sorted { (cluster.nodes[$0].name == leader ? 0 : 1) < (cluster.nodes[$1].name == leader ? 0 : 1) }
        for node in order {
            cluster.kill(node)
            let text = "without \(cluster.nodes[node].name)"
            // The stream elects a new leader if it lost its own; the outbox keeps trying meanwhile.
            #expect(try await eventually(timeout: .seconds(20)) {
                (try? await publisher.jetStream.publish(subject, Array(text.utf8), messageID: UUID().uuidString)) != nil
            })
            // cnats recreates the ordered consumer after missed heartbeats (10 s) when its node was lost.
            #expect(await next(following.messages, within: .seconds(40)).map { String(decoding: $0.payload, as: UTF8.self) } == text)
            try await cluster.restart(node)
        }
        following.messages.unsubscribe()
        await follower.drainAndClose()
        await publisher.drainAndClose()
    }
}

/// The next message of `messages`, or nil when none comes within `timeout`.
private func next(_ messages: Subscription<StreamMessage>, within timeout: Duration = .seconds(10)) async -> StreamMessage? {
    let reader = Task { () -> StreamMessage? in
        for await message in messages { return message }
        return nil
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        reader.cancel()
    }
    defer { timer.cancel() }
    return await reader.value
}
