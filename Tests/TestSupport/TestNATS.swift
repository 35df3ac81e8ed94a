import Logging
import NATS

/// The tests' own NATS connection, opened on first use and shared.
actor TestNATS {
    static let shared = TestNATS()

    private var opening: Task<NATSConnection, any Error>?

    func connection() async throws -> NATSConnection {
        if let opening { return try await opening.value }
        let task = Task {
            try await NATSConnection.connect(TestIdentities.configuration(name: "tests"),
                                             logger: Logger(label: "test-nats", level: .error))
        }
        opening = task
        return try await task.value
    }
}
