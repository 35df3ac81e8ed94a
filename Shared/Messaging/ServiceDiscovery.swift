import Contracts
import Foundation
import JSON
import Logging
import NATS
import Runtime

/// Answers NATS service discovery, the `micro` protocol of the official NATS clients
/// (`$SRV.PING`, `$SRV.INFO`, `$SRV.STATS`, each also as `.<name>` and `.<name>.<id>`), so
/// `nats micro ls`, `nats micro stats` and other standard tooling see every replica with its
/// endpoints and their request and error counts.
///
/// Every replica answers (no queue group). The endpoints and counts come from the process's
/// responders (``ServiceDiscovery/EndpointReporting``).
public struct ServiceDiscovery: Service {
    /// The version every service reports (semantic versioning, as the protocol requires).
    public static let defaultVersion = "0.1.0"

    /// The service's name (its queue group), shared by all its replicas.
    public let serviceName: String
    /// This replica's own ID, unique among all replicas.
    public let id: String
    /// The version reported.
    public let version: String
    private let summary: String
    private let metadata: [String: String]
    private let endpoints: [EndpointCounters]
    private let started: String
    private let connection: NATSConnection
    private let logger: Logger

    /// Creates discovery for the service `name`, listing the endpoints of those `services`
    /// that report them (responders); the others are ignored.
    public init(connection: NATSConnection, serviceName: String, version: String = ServiceDiscovery.defaultVersion,
                description: String = "", metadata: [String: String] = [:], services: [any Service], logger: Logger) {
        self.connection = connection
        self.serviceName = serviceName
        self.id = Self.makeID()
        self.version = version
        self.summary = description
        self.metadata = metadata
        self.endpoints = services.compactMap { ($0 as? any EndpointReporting)?.counters }
        self.started = Self.timestamp(Date())
        self.logger = logger.with(["service.id": id])
    }

    /// `discovery`, in its process's group; the service it answers for is ``serviceName``.
    public var name: String { "discovery" }

    public func run() async throws {
        var subscriptions: [(Verb, NATSSubscription)] = []
        do {
            for verb in Verb.allCases {
                for subject in subjects(verb) {
                    subscriptions.append((verb, try connection.subscribe(subject)))
                }
            }
        } catch {
            subscriptions.forEach { $0.1.unsubscribe() }
            throw error
        }
        let all = subscriptions
        logger.info("service discovery answering", ["nats.subject": "$SRV.>"])
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                for (verb, subscription) in all {
                    group.addTask {
                        for await message in subscription { answer(message, verb) }
                    }
                }
            }
        } onCancel: {
            all.forEach { $0.1.unsubscribe() }
        }
    }

    /// The subjects one verb is asked on: for everyone, for this service's replicas, for this replica.
    func subjects(_ verb: Verb) -> [String] {
        let base = "$SRV.\(verb.rawValue)"
        return [base, "\(base).\(serviceName)", "\(base).\(serviceName).\(id)"]
    }

    private func answer(_ message: NATSMessage, _ verb: Verb) {
        guard message.replyTo != nil else { return }
        do {
            let payload: [UInt8] = switch verb {
            case .ping:
                try MessageCoding.encode(PingResponse(name: serviceName, id: id, version: version, metadata: metadata))
            case .info:
                try MessageCoding.encode(InfoResponse(name: serviceName, id: id, version: version, metadata: metadata,
                                                      description: summary, endpoints: endpoints.map(\.info)))
            case .stats:
                try MessageCoding.encode(StatsResponse(name: serviceName, id: id, version: version, metadata: metadata,
                                                       started: started, endpoints: endpoints.map { $0.snapshot() }))
            }
            try connection.respond(to: message, payload)
        } catch {
            logger.warning("service discovery answer failed", ["nats.subject": message.subject, "error": String(describing: error)])
        }
    }

    /// The three questions of the protocol.
    enum Verb: String, CaseIterable, Sendable {
        case ping = "PING"
        case info = "INFO"
        case stats = "STATS"
    }

    /// A NUID-like ID: 22 random base-62 characters.
    private static func makeID() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        return String((0..<22).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// RFC 3339 in UTC with fractional seconds, as Go's `time.Time` writes it.
    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
