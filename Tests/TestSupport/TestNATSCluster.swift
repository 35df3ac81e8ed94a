import Collections
import Foundation
import Synchronization

/// A private cluster of nats-servers with JetStream on each, for tests that lose a node: the same
/// authorization as the shared server, routes between every pair, each node with a store of its
/// own. Nodes can be killed (SIGKILL) and started again with the same configuration and store.
public final class TestNATSCluster: Sendable {
    /// One node: its client and monitoring ports and its folder (configuration, store).
    public struct Node: Sendable {
        /// The node's server name, `n1`, `n2`, ...
        public let name: String
        /// Its client URL.
        public let url: String
        let monitorPort: Int
        let configuration: URL
    }

    /// The nodes, `n1` first.
    public let nodes: [Node]
    private let folder: URL
    private let processes: ProcessTable

    /// Every node's client URL, comma-separated (a service's `NATS_URL`).
    public var url: String { nodes.map(\.url).joined(separator: ",") }

    private init(nodes: [Node], folder: URL) {
        self.nodes = nodes
        self.folder = folder
        processes = ProcessTable(count: nodes.count)
    }

    /// Writes the configuration of `size` nodes on free ports, starts them and waits until every one
    /// is ready: routes up and a JetStream leader elected (`/healthz`). Without `advertised`, the
    /// nodes do not tell their clients about each other (`no_advertise`): a client knows only the
    /// URLs it was given.
    public static func start(size: Int = 3, advertised: Bool = true) async throws -> TestNATSCluster {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("test-nats-cluster-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ports = try (0..<size).map { _ in (client: try ClusterPorts.take(), monitor: try ClusterPorts.take(),
                                               route: try ClusterPorts.take()) }
        let authorization = try TestIdentities.serverAuthorization()
        var nodes: [Node] = []
        for (index, port) in ports.enumerated() {
            let name = "n\(index + 1)"
            let directory = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let routes = ports.enumerated().filter { $0.offset != index }.map { "\"nats-route://127.0.0.1:\($0.element.route)\"" }
            var text = """
                server_name: "\(name)"
                listen: "127.0.0.1:\(port.client)"
                http: "127.0.0.1:\(port.monitor)"
                jetstream { store_dir: "\(directory.appendingPathComponent("js").path)" }
                cluster {
                  name: "tests"
                  listen: "127.0.0.1:\(port.route)"
                  routes: [ \(routes.joined(separator: ", ")) ]
                  no_advertise: \(!advertised)
                }

                """
            if let authorization {
                try authorization.write(to: directory.appendingPathComponent("auth.conf"), atomically: true, encoding: .utf8)
                text += "include \"auth.conf\"\n"
            }
            let configuration = directory.appendingPathComponent("nats.conf")
            try text.write(to: configuration, atomically: true, encoding: .utf8)
            nodes.append(Node(name: name, url: "nats://127.0.0.1:\(port.client)", monitorPort: port.monitor, configuration: configuration))
        }
        let cluster = TestNATSCluster(nodes: nodes, folder: folder)
        AtExit.register("nats cluster \(folder.path)") { [processes = cluster.processes] in
            processes.killAll()
            try? FileManager.default.removeItem(at: folder)
        }
        for index in nodes.indices { try await cluster.launch(index) }
        for index in nodes.indices { try await cluster.waitReady(index) }
        return cluster
    }

    /// Kills node `index` (0-based) as a crash would, and waits until it has exited.
    public func kill(_ index: Int) {
        processes.kill(index)
    }

    /// Starts node `index` again with its configuration and store, and waits until it has caught up.
    public func restart(_ index: Int) async throws {
        try await launch(index)
        try await waitReady(index)
    }

    /// Stops every node and removes their folders.
    public func stop() {
        processes.killAll()
        AtExit.cancel("nats cluster \(folder.path)")
        try? FileManager.default.removeItem(at: folder)
    }

    /// The name of the node that leads `stream`'s group, as a node's monitoring reports it.
    public func streamLeader(_ stream: String) async -> String? {
        for node in nodes {
            guard let answer = try? await RunningStack.send("GET", "http://127.0.0.1:\(node.monitorPort)/jsz?accounts=true&streams=true"),
                  let report = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
                  let accounts = report["account_details"] as? [[String: Any]] else { continue }
            for account in accounts {
                for detail in account["stream_detail"] as? [[String: Any]] ?? [] where detail["name"] as? String == stream {
                    if let leader = (detail["cluster"] as? [String: Any])?["leader"] as? String { return leader }
                }
            }
        }
        return nil
    }

    private func launch(_ index: Int) async throws {
        let candidates = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestStackError("nats-server is not installed (deploy/local/test installs it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        // Its log beside its configuration, appended to across restarts; a node that never gets ready says why.
        process.arguments = ["-c", nodes[index].configuration.path, "-l", log(index).path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // On a thread of its own: Process.run() closes every descriptor the child could inherit (a loop to
        // the descriptor limit), which held Swift's cooperative threads for seconds beside the other suites.
        try await BlockingCall.run { try process.run() }
        processes.set(index, process)
    }

    private func waitReady(_ index: Int) async throws {
        let url = "http://127.0.0.1:\(nodes[index].monitorPort)/healthz"
        try await waitUntil(timeout: .seconds(60), "NATS node \(nodes[index].name) is not ready after 60 s; its log ends:\n\(logTail(index))") {
            (try? await RunningStack.send("GET", url))?.status == 200
        }
    }

    /// The last lines of a node's log, for a failure that names why it never got ready.
    private func logTail(_ index: Int) -> String {
        let text = (try? String(contentsOf: log(index), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(8).joined(separator: "\n")
    }

    private func log(_ index: Int) -> URL {
        nodes[index].configuration.deletingLastPathComponent().appendingPathComponent("nats.log")
    }
}

/// Ports for the clusters' nodes, none twice in this process, from below Linux's ephemeral range
/// (32768 and up). A port the system picks (``TestNATSServer/freePort()``) comes from that range, and
/// between the pick and the node's bind an outgoing connection of the parallel suites, or another
/// cluster's pick, could take it: a node that could not bind never became ready.
private enum ClusterPorts {
    private static let next = Mutex(20_000 + Int(getpid()) % 1_000 * 10)

    static func take() throws -> Int {
        for _ in 0..<5_000 {
            let port = next.withLock { next -> Int in
                defer { next = next >= 32_000 ? 20_000 : next + 1 }
                return next
            }
            if TestNATSServer.isFree(port) { return port }
        }
        throw TestStackError("no free port below 32768 for a NATS node")
    }
}

/// The cluster's node processes, one slot per node.
private final class ProcessTable: Sendable {
    private let processes: Mutex<[Process?]>

    init(count: Int) {
        processes = Mutex(Array(repeating: nil, count: count))
    }

    func set(_ index: Int, _ process: Process) {
        processes.withLock { $0[index] = process }
    }

    func kill(_ index: Int) {
        guard let process = processes.withLock({ $0[index] }), process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func killAll() {
        for index in processes.withLock({ $0.indices }) { kill(index) }
    }
}
