import Collections
import HTTPServer
import HTTPTesting
import Synchronization
import Testing

@Suite("Bodies over maxBodySize")
struct BodyLimitTests {
    @Test("A chunked body over the limit reaches the handler empty and marked bodyTooLarge; the connection stays usable")
    func tooLarge() async throws {
        let seen = Mutex<[(Int, Bool)]>([])
        let configuration = testConfiguration { $0.maxBodySize = 1024 }
        try await withServer(configuration, handler: { request in
            seen.withLock { $0.append((request.body.count, request.bodyTooLarge)) }
            return HTTPResponse(status: request.bodyTooLarge ? 413 : 200, body: Array(String(request.body.count).utf8))
        }) { server in
            let port = server.port
            let (large, exact, after) = try await BlockingCall.run {
                let connection = try RawHTTPConnection(port: port)
                // Chunked, so no Content-Length announces the size: the server finds out while reading.
                try connection.send("POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = [UInt8](repeating: 65, count: 10_000)
                for _ in 0..<10 {
                    try connection.send("2710\r\n")
                    try connection.send(chunk + Array("\r\n".utf8))
                }
                try connection.send("0\r\n\r\n")
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

    @Test("A Content-Length over the limit reaches the handler at once, before any body is sent; the connection closes after the answer")
    func announcedTooLarge() async throws {
        let seen = Mutex<[(Int, Bool)]>([])
        let configuration = testConfiguration { $0.maxBodySize = 1024 }
        try await withServer(configuration, handler: { request in
            seen.withLock { $0.append((request.body.count, request.bodyTooLarge)) }
            return HTTPResponse(status: request.bodyTooLarge ? 413 : 200)
        }) { server in
            let port = server.port
            let (response, closed) = try await BlockingCall.run {
                // Without the early answer the read would wait for the body: it gives up after 5 s.
                let connection = try RawHTTPConnection(port: port, readTimeoutSeconds: 5)
                try connection.send("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 1025\r\n\r\n")
                let response = try connection.readResponse()
                return (response, connection.isClosedByPeer())
            }
            #expect(response.status == 413)
            #expect(closed)
            #expect(seen.withLock { $0.map { "\($0.0) \($0.1)" } } == ["0 true"])
        }
    }
}
