import NATS
import Testing

@Suite("Subjects are validated before use")
struct SubjectValidationTests {
    @Test(arguments: ["", "a b", "a..b", ".a", "a.", "a.*", "a.>", "tab\there"])
    func invalidPublishSubjectsAreRejected(_ subject: String) async throws {
        let connection = try await TestNATS.connect()
        #expect(throws: NATSError.invalidSubject) { try connection.publish(subject, []) }
        await #expect(throws: NATSError.invalidSubject) { _ = try await connection.request(subject, [], timeout: .seconds(1)) }
        await connection.drainAndClose()
    }

    @Test func wildcardsAreFineForSubscribe() async throws {
        let connection = try await TestNATS.connect()
        let subscription = try connection.subscribe("\(TestNATS.unique("w")).*.>")
        #expect(throws: NATSError.invalidSubject) { try connection.subscribe("a.>.b") }
        #expect(throws: NATSError.invalidSubject) { try connection.subscribe("a.b*") }
        subscription.unsubscribe()
        await connection.drainAndClose()
    }
}
