import HTTPServer
import Synchronization
import Testing

@Suite("Bodies over maxBodySize")
struct BodyLimitTests {
    @Test("A body over the limit reaches the handler empty and marked bodyTooLarge; the connection stays usable")
    func tooLarge() async throws {
        let seen = Mutex<[(Int, Bool)]>([])
        let configuration = testConfiguration { $0.maxBodySize = 1024 }
        try await withServer(configuration, handler: { request in
            seen.withLock { $0.append((request.body.count, request.bodyTooLarge)) }
            return HTTPResponse(status: request.bodyTooLarge ? 413 : 200, body: Array(String(request.body.count).utf8))
        }) { server in
            let port = server.port
            let (large, exact, after) = try await onThread {
                let connection = try RawHTTPConnection(port: port)
                let big = [UInt8](repeating: 65, count: 100_000)
                try connection.send("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: \(big.count)\r\n\r\n")
                try connection.send(big)
                let large = try connection.readResponse()
                let limit = [UInt8](repeating: 66, count: 1024)
                try connection.send("POST /limit HTTP/1.1\r\nHost: x\r\nContent-Length: 1024\r\n\r\n")
                try connection.send(limit)
                let exact = try connection.readResponse()
                try connection.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
                return (large, exact, try connection.readResponse())
            }
            #expect(large.status == 413)
            #expect(exact.status == 200)
            #expect(exact.body == Array("1024".utf8))
            #expect(after.status == 200)
            let calls = seen.withLock { $0 }
            #expect(calls.count == 3)
            #expect(calls.first.map { $0.0 == 0 && $0.1 } == true)
            #expect(calls.dropFirst().allSatisfy { !$0.1 })
        }
    }
}
