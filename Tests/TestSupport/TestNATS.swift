import Logging
import NATS

/// The tests' own NATS connections, one per server URL, opened on first use and shared.
actor TestNATS {
    static let shared = TestNATS()

    private var opening: [String: Task<NATSConnection, any Error>] = [:]

    /// The connection to the server at `url` (the shared one unless a private stack's).
    func connection(to url: String = TestEnvironment.natsURL) async throws -> NATSConnection {
        if let task = opening[url] { return try await task.value }
        let task = Task {
            try await NATSConnection.connect(TestIdentities.configuration(url: url, name: "tests"),
                                             logger: Logger(label: "test-nats", level: .error))
        }
        opening[url] = task
        return try await task.value
    }
}
