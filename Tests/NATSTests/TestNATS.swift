import Crypto
import Foundation
import Logging
import NATS

/// Where the test server is and how tests connect to it: `NATS_URL`, default `nats://127.0.0.1:4222`.
/// Tests fail (they do not skip) when the server is not there.
enum TestNATS {
    static var url: String {
        ProcessInfo.processInfo.environment["NATS_URL"] ?? "nats://127.0.0.1:4222"
    }

    static let logger = Logger(label: "nats-tests", level: .warning, format: .text)

    /// The test command's unrestricted test user (`$NATS_IDENTITIES_DIR/tests.nk`), when the server
    /// requires credentials.
    static var access: NATSConnection.Access {
        guard let directory = ProcessInfo.processInfo.environment["NATS_IDENTITIES_DIR"], !directory.isEmpty,
              let seed = try? String(contentsOfFile: "\(directory)/tests.nk", encoding: .utf8),
              let key = try? NKey(seed: seed) else { return NATSConnection.Access() }
        return NATSConnection.Access(nkey: .init(publicKey: key.publicKey, seedFile: "\(directory)/tests.nk"))
    }

    static func connect(_ name: String = "nats-tests", url: String = TestNATS.url,
                        reconnectWait: Duration = .milliseconds(250)) async throws -> NATSConnection {
        try await NATSConnection.connect(.init(url: url, name: name, reconnectWait: reconnectWait, access: access), logger: logger)
    }

    /// A name no other test (or earlier run) uses, for subjects, streams and consumers.
    static func unique(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12))"
    }

    /// Answers every request on `subject` in queue group `queue` with `answer(request)`; the subscription is
    /// known to the server when this returns.
    @discardableResult
    static func respond(on connection: NATSConnection, subject: String, queue: String = "workers",
                        answer: @escaping @Sendable (NATSMessage) -> [UInt8] = { $0.payload }) async throws -> NATSSubscription {
        let subscription = try connection.subscribe(subject, queue: queue)
        Task {
            for await message in subscription {
                try? connection.respond(to: message, answer(message))
            }
        }
        try await connection.flush(timeout: .seconds(10))
        return subscription
    }
}

extension ContinuousClock.Instant.Duration {
    /// Seconds as a Double, for readable comparisons in tests.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
