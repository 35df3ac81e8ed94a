import Collections
import DevIDP
import Dispatch
import Foundation
import HTTPTesting
import Logging
import Synchronization
import Testing

/// The test processes' dev-idp (`handlersOnItsThread`) answers whatever the process's cooperative pool is
/// doing, as a provider on the internet would: in CI's failed run, suites that held both pool threads for
/// seconds left its Naver and Apple answers past the verifier's 4 s timeout.
@Suite("dev-idp on a thread of its own")
struct DevIDPThreadTests {
    @Test("with every thread of Swift's cooperative pool held by synchronous work, dev-idp still serves its key set")
    func answersWhileThePoolIsHeld() async throws {
        var configuration = DevIDPConfiguration()
        configuration.port = 0
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let server = DevIDPServer(configuration: configuration, logger: Logger(label: "dev-idp", level: .error),
                                  handlersOnItsThread: true) { port, _ in listening.yield(port) }
        let running = Task { try? await server.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next(), "dev-idp did not start")
        let threads = ProcessInfo.processInfo.activeProcessorCount
        // Driven from a thread of its own: the test's own task would wait for the pool it holds.
        let (held, status) = try await BlockingCall.run { () -> (Int, Int?) in
            let gate = Hold()
            defer { for _ in 0..<threads { gate.release.signal() } }
            for _ in 0..<threads {
                Task.detached {
                    gate.held.add(1, ordering: .relaxed)
                    _ = gate.release.wait(timeout: .now() + 20)
                }
            }
            let deadline = ContinuousClock.now + .seconds(20)
            while gate.held.load(ordering: .relaxed) < threads, ContinuousClock.now < deadline { usleep(1000) }
            let connection = try RawHTTPConnection(port: port, readTimeoutSeconds: 4)
            try connection.send("GET /google/jwks HTTP/1.1\r\nHost: x\r\n\r\n")
            return (gate.held.load(ordering: .relaxed), try? connection.readResponse().status)
        }
        #expect(held == threads, "the pool was not held")
        #expect(status == 200, "dev-idp did not answer while the pool was held")
    }

    private final class Hold: Sendable {
        let release = DispatchSemaphore(value: 0)
        let held = Atomic<Int>(0)
    }
}
