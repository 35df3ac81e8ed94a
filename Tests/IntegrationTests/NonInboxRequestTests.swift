import Contracts
import Foundation
import JSON
import Logging
import Messaging
import NATS
import Postgres
import Testing
import TestSupport

/// A responder answers on an inbox only: a request whose reply subject is another subject (a service's,
/// an event's) is dropped before it is decoded or handled, and counted.
@Suite("Requests that cannot be answered on an inbox")
struct NonInboxRequestTests {
    private static let stack = TestStack.isolated()

    @Test("a rotate request from the operator with a reply subject outside _INBOX rotates nothing, and is counted as dropped")
    func rotateWithoutInbox() async throws {
        let stack = try await Self.stack.running()
        let operatorConnection = try await NATSConnection.connect(
            .init(url: stack.natsURL, name: "as-operator", access: TestIdentities.access(for: .operator)),
            logger: Logger(label: "non-inbox", level: .critical))
        let tests = try await NATSConnection.connect(TestIdentities.configuration(url: stack.natsURL, name: "non-inbox"),
                                                     logger: Logger(label: "non-inbox", level: .critical))
        try await withResource((operatorConnection, tests), close: { await $0.0.drainAndClose(); await $0.1.drainAndClose() }) { _ in
            let database = PostgresClient(configuration: try PostgresConfiguration(url: stack.databaseURL),
                                          logger: Logger(label: "non-inbox", level: .critical))
            try await withResource(database, close: { await $0.close() }) { database in
                func keys() async throws -> [String] {
                    try await database.query("SELECT kid FROM issuer.signing_keys ORDER BY kid").map { try $0.string("kid") }
                }
                @Sendable func dropped() async throws -> Int {
                    let reply = try await tests.request("$SRV.STATS.\(QueueGroups.tokenIssuer)", [], timeout: .seconds(10))
                    let stats = try MessageCoding.decode(ServiceDiscovery.StatsResponse.self, from: reply.payload)
                    return stats.endpoints.first { $0.subject == Endpoints.rotateSigningKeys.subject }?.data?.droppedRequests ?? -1
                }
                let before = try await keys()
                let droppedBefore = try await dropped()
                #expect(droppedBefore >= 0, "the issuer reports no dropped count for rotate-keys")
                let request = try MessageCoding.encode(RotateSigningKeysRequest())
                for target in ["auth.issuer.keys-changed", "events.member.deleted", "_INBOXES.probe", "INBOX.probe"] {
                    try operatorConnection.publish(Endpoints.rotateSigningKeys.subject, replyTo: target, request)
                }
                try await operatorConnection.flush(timeout: .seconds(5))
                // Each reached the issuer (the control: it counted them) and changed nothing.
                #expect(try await eventually(timeout: .seconds(10)) { try await dropped() == droppedBefore + 4 },
                        "the issuer did not count the 4 requests as dropped")
                #expect(try await keys() == before, "a request with no inbox to answer rotated the keys")
                #expect(operatorConnection.permissionViolations == 0)
            }
        }
    }
}
