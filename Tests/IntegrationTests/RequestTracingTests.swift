import Contracts
import Foundation
import Logging
import NATS
import Testing
import TestSupport

/// One request can be followed through every service: the gateway takes the client's `X-Request-Id`,
/// sends it as a NATS header with each call, and every service logs the request under that ID at debug
/// level. The stack here is private (its own nats-server, its services logging at debug into one
/// buffer), so what each service wrote can be read.
@Suite("A request ID follows the request through every service")
struct RequestTracingTests {
    /// One private stack for the suite: starting one costs seconds.
    private static let traced = TracedStack()

    @Test("a login with X-Request-Id leaves that ID in the logs of the gateway, token-verifier, member-service and token-issuer")
    func loginIsTraced() async throws {
        let (stack, sink, _) = try await Self.traced.running()
        let id = "trace-\(UUID().uuidString.lowercased())"
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject("traced"))
        let response = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: token, deviceId: "traced-device"),
                                            headers: [("X-Request-Id", id)])
        #expect(response.status == 200)
        #expect(response.headers["x-request-id"] == id)
        let tokens = try response.data(LoginResponse.self)

        // One request down the chain: the verifier and the member-service hand it on, the issuer answers.
        let expected = [("token-verifier", Endpoints.login.subject, "handed-on"), ("member-service", Endpoints.memberLogin.subject, "handed-on"),
                        ("token-issuer", Endpoints.issueTokens.subject, "ok")]
        // A service writes its line once it has replied, so the gateway's answer can come a moment before it.
        let complete = await eventually(timeout: .seconds(5)) {
            let lines = LogLine.all(sink, requestID: id)
            return expected.allSatisfy { service, _, _ in lines.contains { $0.logger == service } }
                && lines.contains { $0.logger == "gateway" }
        }
        #expect(complete)
        let lines = LogLine.all(sink, requestID: id)
        for (service, subject, outcome) in expected {
            let handled = lines.filter { $0.logger == service && $0.message == "request handled" }
            #expect(handled.count == 1, "\(service) logged \(handled.count) handled requests with the ID")
            #expect(handled.first?.fields["nats.subject"] == subject)
            #expect(handled.first?.fields["request.outcome"] == outcome)
            #expect(handled.first?.fields["request.duration_ms"].flatMap(Double.init) != nil)
        }
        let answered = lines.first { $0.logger == "gateway" && $0.message == "request answered" }
        #expect(answered?.fields["http.path"] == "/api/auth/google-login")
        #expect(answered?.fields["http.status"] == "200")
        // Tracing logs the request, never what it carried.
        let everything = sink.lines.joined()
        for secret in [token, tokens.accessToken, tokens.refreshToken] {
            #expect(!everything.contains(secret))
        }
    }

    @Test("an authenticated request carries its ID and member to the gateway's line and the issuer's")
    func authenticatedRequestIsTraced() async throws {
        let (stack, sink, _) = try await Self.traced.running()
        let login = try await stack.googleSession(sub: RunningStack.uniqueSubject("traced"))
        let id = "trace-\(UUID().uuidString.lowercased())"
        let response = try await stack.get("/api/auth/sessions", bearer: login.accessToken, headers: [("X-Request-Id", id)])
        #expect(response.status == 200)
        let traced = await eventually(timeout: .seconds(5)) {
            LogLine.all(sink, requestID: id).contains { $0.logger == "token-issuer" && $0.message == "request handled" }
        }
        #expect(traced)
        let lines = LogLine.all(sink, requestID: id)
        #expect(lines.first { $0.logger == "token-issuer" }?.fields["nats.subject"] == Endpoints.listSessions.subject)
        let answered = lines.first { $0.logger == "gateway" && $0.message == "request answered" }
        #expect(answered?.fields["member.id"] == String(login.memberId))
    }

    @Test("an X-Request-Id that is not sane is replaced by the gateway and, sent on the bus, by the service")
    func insaneIDsReplaced() async throws {
        let (stack, sink, natsURL) = try await Self.traced.running()
        let tooLong = String(repeating: "x", count: 129)
        let response = try await stack.get("/api/auth/sessions", headers: [("X-Request-Id", tooLong)])
        #expect(response.status == 401)
        let replaced = try #require(response.headers["x-request-id"])
        #expect(replaced != tooLong && replaced.count == 36)
        #expect(!sink.lines.contains { $0.contains(tooLong) })

        // A caller on the bus sets the header itself: the service must not log what it was sent.
        let nats = try await NATSConnection.connect(TestIdentities.configuration(url: natsURL, name: "trace-test"),
                                                    logger: Logger(label: "trace-test", level: .error))
        let forged = "forged-" + String(repeating: "y", count: 130)
        let reply = try await withResource(nats, close: { await $0.drainAndClose() }) { nats in
            try await nats.request(Endpoints.ping(QueueGroups.memberService).subject, Array("{}".utf8),
                                   headers: [RequestID.header: forged], timeout: .seconds(5))
        }
        #expect(!reply.payload.isEmpty)
        let refused = await eventually(timeout: .seconds(5)) {
            LogLine.parse(sink).contains { $0.logger == "member-service" && $0.fields["request.id_refused"] == "true" }
        }
        #expect(refused)
        #expect(!sink.lines.contains { $0.contains("forged-") })
    }
}

/// The suite's private stack: its own nats-server (JetStream on), every part logging at debug into one buffer.
private actor TracedStack {
    private var starting: Task<(stack: RunningStack, sink: LogSink, natsURL: String), any Error>?

    func running() async throws -> (stack: RunningStack, sink: LogSink, natsURL: String) {
        if let starting { return try await starting.value }
        let task = Task { () async throws -> (stack: RunningStack, sink: LogSink, natsURL: String) in
            // Stopped when the test process exits.
            let nats = try await TestNATSServer.start(jetStream: true)
            let sink = LogSink.capturing()
            let logger = Logger(label: "test", level: .debug, format: .json, sink: sink)
            return (try await TestStack(natsURL: nats.url, logger: logger).running(), sink, nats.url)
        }
        starting = task
        return try await task.value
    }
}

/// One JSON log line, read back.
private struct LogLine {
    let logger: String
    let message: String
    let fields: [String: String]

    static func parse(_ sink: LogSink) -> [LogLine] {
        sink.lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                  let logger = object["logger"], let message = object["message"] else { return nil }
            return LogLine(logger: logger, message: message, fields: object)
        }
    }

    /// The lines that carry `requestID` as `request.id`.
    static func all(_ sink: LogSink, requestID: String) -> [LogLine] {
        parse(sink).filter { $0.fields["request.id"] == requestID }
    }
}
