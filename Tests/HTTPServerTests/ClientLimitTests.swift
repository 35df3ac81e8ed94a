import Collections
import Foundation
import HTTPServer
import HTTPTesting
import Testing

/// Protection against floods and slow clients: a cap on connections per client address, and
/// an idle timeout that closes connections which send nothing (slowloris).
@Suite("Per-address connection limit and idle timeout")
struct ClientLimitTests {
    @Test("connections beyond the per-address limit are refused; the ones within it are served")
    func perAddressLimit() async throws {
        try await withServer(testConfiguration { $0.perAddressConnectionLimit = 2 }, handler: { _ in
            HTTPResponse(status: 200, body: Array("ok".utf8))
        }) { server in
            let port = server.port
            let (servedFirst, servedSecond, refused) = try await BlockingCall.run {
                let first = try RawHTTPConnection(port: port, readTimeoutSeconds: 10)
                let second = try RawHTTPConnection(port: port, readTimeoutSeconds: 10)
                try first.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
                try second.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
                let a = try first.readResponse().status
                let b = try second.readResponse().status
                // Both stay open (keep-alive), so a third from the same address is over the limit.
                let third = try RawHTTPConnection(port: port, readTimeoutSeconds: 10)
                try? third.send("GET /c HTTP/1.1\r\nHost: x\r\n\r\n")
                let answered = (try? third.readResponse()) != nil
                withExtendedLifetime((first, second)) {}
                return (a, b, !answered)
            }
            #expect(servedFirst == 200 && servedSecond == 200)
            #expect(refused, "a third connection from the same address was served")
        }
    }

    @Test("a client that opens a connection and sends nothing more is disconnected after the idle timeout")
    func idleTimeout() async throws {
        try await withServer(testConfiguration { $0.connectionTimeout = .seconds(1) }, handler: { _ in
            HTTPResponse(status: 200)
        }) { server in
            let port = server.port
            let started = ContinuousClock.now
            let closed = try await BlockingCall.run {
                let slow = try RawHTTPConnection(port: port, readTimeoutSeconds: 15)
                // Half a request line, then silence.
                try slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n")
                return (try? slow.readResponse()) == nil
            }
            let elapsed = ContinuousClock.now - started
            #expect(closed, "the server answered a request that never finished")
            #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(10), "closed after \(elapsed)")
        }
    }
}
