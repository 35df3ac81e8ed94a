import Contracts
import Foundation
import Logging
import Messaging
import NATS
import Synchronization
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
        try await connectQuickly(cluster.url, name, logger)
    }

    @Test("calls through a service client are answered while each node in turn is down")
    func callsSurviveEachNode() async throws {
        let cluster = try await TestNATSCluster.start()
        defer { cluster.stop() }
        let endpoint = Endpoint<Ask, Answer>("test.cluster.\(RunningStack.uniqueSubject())")
        // Two responders and a caller, each on a node of the list's random order. A client stays on its
        // node until that node goes, and every node goes in turn, so each of them loses its node once at least.
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
                try await Task.sleep(for: .milliseconds(25))  // spreads the calls over the failover
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
        // Its warnings (cnats's asynchronous errors: missed heartbeats, a consumer not recreated) are shown.
        let follower = try await NATSConnection.connect(
            NATSConnection.Configuration(url: cluster.url, name: "follower", reconnectWait: .milliseconds(100), access: TestIdentities.tests),
            logger: Logger(label: "nats-cluster-follower", level: .warning))
        let following = try await follower.jetStream.follow(stream: stream, subject: subject, since: Date(timeIntervalSinceNow: -60))
        let received = Texts()
        let reading = Task {
            for await message in following.messages {
                received.append(String(decoding: message.payload, as: UTF8.self), sequence: message.streamSequence)
            }
        }
        #expect(try await eventually(timeout: .seconds(10)) { received.all == ["before"] }, "\(received.all)")

        let leader = await cluster.streamLeader(stream)
        let order = cluster.nodes.indices.sorted { (cluster.nodes[$0].name == leader ? 0 : 1) < (cluster.nodes[$1].name == leader ? 0 : 1) }
        var expected = ["before"]
        for node in order {
            cluster.kill(node)
            let text = "without \(cluster.nodes[node].name)"
            let messageID = UUID().uuidString   // the same for every attempt: one that was stored is not stored again
            // The stream elects a new leader if it lost its own; the outbox keeps trying meanwhile.
            #expect(try await eventually(timeout: .seconds(20)) {
                (try? await publisher.jetStream.publish(subject, Array(text.utf8), messageID: messageID)) != nil
            })
            expected.append(text)
            // cnats recreates the ordered consumer after missed heartbeats (10 to 20 s) when its node was
            // lost, and again every 10 s while that fails. nats-server 2.9 may place the new consumer on
            // the node that is down, and then the create times out: the follower may catch up only once
            // the node is back (seen here, and in a direct trial: 2 of 3 creates after a kill timed out).
            // Without the start sequence (JetStream.follow) it never caught up at all.
            let wanted = expected
            let whileDown = await eventually(timeout: .seconds(40)) { received.all == wanted }
            try await cluster.restart(node)
            let caughtUp = whileDown ? true : await eventually(timeout: .seconds(30)) { received.all == wanted }
            #expect(caughtUp, "with \(cluster.nodes[node].name) down and back: received \(received.raw)")
        }
        reading.cancel()
        following.messages.unsubscribe()
        await follower.drainAndClose()
        await publisher.drainAndClose()
    }
}

/// A call whose connection is lost while its request is being handled (its node killed mid-call): one
/// not to be repeated fails and is not sent again, one that may be repeated is sent again once the
/// client is connected again. The caller knows only node 1 (the nodes do not advertise each other), so
/// it is without a connection until node 1 is back after the kill; the responder is on node 2.
/// The responder takes 5 s over the first request of the call (long enough for the kill to come first
/// on a busy machine) and 0.2 s over a resend.
@Suite("A call that lost its connection mid-request")
struct LostConnectionCallTests {
    let logger = Logger(label: "nats-cluster-lost", level: .error)

    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    private func connect(_ url: String, _ name: String) async throws -> NATSConnection {
        try await connectQuickly(url, name, logger)
    }

    @Test("with retries 0 the call fails as unavailable and the service saw it once; with retries 1 it is answered once the connection is back, seen twice, also when the node goes after the first 3 s of the call",
          arguments: [(retries: 0, killAfter: Duration.zero), (1, .zero), (1, .milliseconds(3_300))])
    func lostMidCall(retries: Int, killAfter: Duration) async throws {
        let cluster = try await TestNATSCluster.start(advertised: false)
        defer { cluster.stop() }
        let endpoint = Endpoint<Ask, Answer>("test.cluster.lost.\(RunningStack.uniqueSubject())")
        let seen = Count()
        let responderConnection = try await connect(cluster.nodes[1].url, "responder")
        let responder = Responder(connection: responderConnection, endpoint: endpoint, queue: "cluster-lost-tests", logger: logger) { ask in
            let count = seen.value.add(1, ordering: .relaxed).newValue
            // Work that takes a while: the first request is still with the responder when the caller's node goes.
            if ask.n != 0 { try await Task.sleep(for: count == 1 ? .seconds(5) : .milliseconds(200)) }
            return Answer(n: ask.n * 2)
        }
        let serving = Task { try await responder.run() }
        let caller = try await connect(cluster.nodes[0].url, "caller")
        let client = ServiceClient(connection: caller, logger: logger)
        // The responder's interest has reached node 1 once a call is answered.
        #expect(try await eventually(timeout: .seconds(10)) {
            (try? await client.call(endpoint, Ask(n: 0), timeout: .seconds(3)))?.n == 0
        })
        seen.value.store(0, ordering: .relaxed)

        let call = Task { () throws(ServiceFailure) -> Int in
            try await client.call(endpoint, Ask(n: 21), timeout: .seconds(5), retries: retries).n
        }
        // The request is with the responder (it answers after 5 s) when the caller's node goes. Past the
        // failover patience (3 s), the resend must wait for the reconnection all the same.
        #expect(try await eventually(timeout: .seconds(5)) { seen.value.load(ordering: .relaxed) == 1 })
        try await Task.sleep(for: killAfter)  // the moment of the kill is the test's parameter
        cluster.kill(0)
        let restarting = Task {
            // The node stays down a moment: the resend waits for it, within the failover patience (3 s), which the
            // node's own start takes a good part of on a busy machine (a second's stay made the whole run miss it).
            try await Task.sleep(for: .milliseconds(200))
            try await cluster.restart(0)
        }
        let outcome = await call.result
        try await restarting.value
        if retries == 0 {
            #expect(throws: ServiceFailure.unavailable) { try outcome.get() }
            // A fixed window is the check: time for a resend, if there were one, to reach the responder.
            try await Task.sleep(for: .seconds(3))
            #expect(seen.value.load(ordering: .relaxed) == 1)
        } else {
            #expect(try outcome.get() == 42)
            #expect(seen.value.load(ordering: .relaxed) == 2)
        }
        serving.cancel()
        await caller.drainAndClose()
        await responderConnection.drainAndClose()
    }
}

/// A test client of `url` (one server or a list) that tries to reconnect every 100 ms.
private func connectQuickly(_ url: String, _ name: String, _ logger: Logger) async throws -> NATSConnection {
    try await NATSConnection.connect(
        NATSConnection.Configuration(url: url, name: name, reconnectWait: .milliseconds(100), access: TestIdentities.tests),
        logger: logger)
}

/// The texts a follower received, in order.
private final class Texts: Sendable {
    private let texts = Mutex<[(sequence: UInt64, text: String)]>([])
    /// The texts read, each stream sequence once and a text read again right after itself once: at
    /// least once and in order is what a follower needs (the gateway's ended-session cache takes an
    /// end twice alike). A busy full run once read "without n1" twice, right after itself, after the
    /// leader n1 was killed while the publisher retried that text (same message ID) until a new
    /// leader took it; whether nats-server 2.9 stored it twice or the recreated consumer read it
    /// again, `raw` (with the sequences) tells the next time.
    var all: [String] {
        texts.withLock { read in
            var seen: Set<UInt64> = []
            var result: [String] = []
            for (sequence, text) in read where seen.insert(sequence).inserted || sequence == 0 {
                if result.last != text { result.append(text) }
            }
            return result
        }
    }
    /// Every message read, as `sequence:text`, for the failure messages.
    var raw: [String] { texts.withLock { $0.map { "\($0.sequence):\($0.text)" } } }
    func append(_ text: String, sequence: UInt64 = 0) { texts.withLock { $0.append((sequence, text)) } }
}
