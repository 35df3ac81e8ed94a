import Collections
import Foundation
import Logging
import Runtime
import Synchronization
import Testing

@Suite("ServiceGroup: one flat group of named services, stopped in reverse after its stopping hook", .timeLimit(.minutes(1)))
struct ServiceGroupTests {
    private struct Broken: Error {}

    @Test("services stop in reverse order of the list, the hook first; the log names each one as it starts and stops")
    func reverseOrder() async throws {
        let record = Record(expecting: 3)
        let sink = LogSink.capturing()
        let group = ServiceGroup(services: ["postgres", "nats", "auth.member.get"].map { record.service($0) },
                                 logger: Logger(label: "test", level: .debug, sink: sink), onStopping: { record.add("hook") })
        let running = Task { try await group.run() }
        await record.allRunning.opened()
        running.cancel()
        try await running.value

        #expect(record.events.filter { $0.hasPrefix("stop") || $0 == "hook" } == ["hook", "stop auth.member.get", "stop nats", "stop postgres"])
        #expect(Self.named("service starting", sink) == ["postgres", "nats", "auth.member.get"])
        #expect(Self.named("service stopped", sink) == ["auth.member.get", "nats", "postgres"])
        #expect(Self.messages(sink).contains("stopping"))
    }

    @Test("a prelude's services take its place once it is done: they stop after those listed after it, before those before it")
    func preludeInPlace() async throws {
        let record = Record(expecting: 4)
        let migrations = ClosurePrelude("migrations") { [record.service("outbox"), record.service("auth.member.get")] }
        let group = ServiceGroup(services: [record.service("postgres"), migrations, record.service("discovery")],
                                 logger: Logger(label: "test", level: .error), onStopping: { record.add("hook") })
        let running = Task { try await group.run() }
        await record.allRunning.opened()
        running.cancel()
        try await running.value

        #expect(record.events.filter { $0.hasPrefix("stop") || $0 == "hook" }
                == ["hook", "stop discovery", "stop auth.member.get", "stop outbox", "stop postgres"])
    }

    @Test("cancelled while a prelude waits, the group stops it and what runs; the prelude's services never start")
    func cancelledInPrelude() async throws {
        let record = Record(expecting: 1)
        let waiting = Gate()
        let migrations = ClosurePrelude("migrations") {
            waiting.open()
            await Task.sleepUntilCancelled()
            try Task.checkCancellation()
            return [record.service("auth.member.get")]
        }
        let group = ServiceGroup(services: [record.service("postgres"), migrations], logger: Logger(label: "test", level: .error),
                                 onStopping: { record.add("hook") })
        let running = Task { try await group.run() }
        await record.allRunning.opened()
        await waiting.opened()
        running.cancel()
        try await running.value

        #expect(record.events == ["run postgres", "hook", "stop postgres"])
    }

    @Test("a service that fails stops the group after the hook, the others in reverse; the failure is rethrown, the service named")
    func failure() async throws {
        let record = Record(expecting: 2)
        let failing = ClosureService("sweep-nonces") {
            await record.allRunning.opened()
            throw Broken()
        }
        let sink = LogSink.capturing()
        let group = ServiceGroup(services: [record.service("postgres"), failing, record.service("discovery")],
                                 logger: Logger(label: "test", level: .info, sink: sink), onStopping: { record.add("hook") })
        await #expect(throws: Broken.self) { try await group.run() }

        #expect(record.events.filter { $0.hasPrefix("stop") || $0 == "hook" } == ["hook", "stop discovery", "stop postgres"])
        #expect(Self.named("service failed, shutting down", sink) == ["sweep-nonces"])
        #expect(Self.named("service stopped", sink) == ["discovery", "sweep-nonces", "postgres"])
    }

    /// What the services and the hook did, in order, and a gate opened once `expecting` services run.
    private final class Record: Sendable {
        let allRunning = Gate()
        private let expecting: Int
        private let state = Mutex<(events: [String], running: Int)>(([], 0))

        init(expecting: Int) {
            self.expecting = expecting
        }

        var events: [String] { state.withLock { $0.events } }

        func add(_ event: String) {
            state.withLock { $0.events.append(event) }
        }

        /// A service that notes when it runs and when it is stopped.
        func service(_ name: String) -> any Service {
            ClosureService(name) {
                let all = self.state.withLock { state -> Bool in
                    state.events.append("run \(name)")
                    state.running += 1
                    return state.running == self.expecting
                }
                if all { self.allRunning.open() }
                await Task.sleepUntilCancelled()
                self.add("stop \(name)")
            }
        }
    }

    private static func lines(_ sink: LogSink) -> [[String: String]] {
        sink.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
    }

    private static func messages(_ sink: LogSink) -> [String] {
        lines(sink).compactMap { $0["message"] }
    }

    /// The services named by the lines with `message`, in order.
    private static func named(_ message: String, _ sink: LogSink) -> [String] {
        lines(sink).filter { $0["message"] == message }.compactMap { $0["service"] }
    }
}
