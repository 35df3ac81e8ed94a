import Collections
import HTTPServer
import HTTPTesting
import Testing

@Suite("Keep-alive")
struct KeepAliveTests {
    @Test("Two requests on one connection are both answered, without Connection: close")
    func twoRequestsOneConnection() async throws {
        try await withServer(testConfiguration(), handler: { request in
            HTTPResponse(status: 200, body: Array(request.path.utf8))
        }) { server in
            let port = server.port
            let (first, second) = try await BlockingCall.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
                let first = try connection.readResponse()
                try connection.send("POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
                return (first, try connection.readResponse())
            }
            #expect(first.status == 200)
            #expect(first.body == Array("/one".utf8))
            #expect(first.header("connection")?.lowercased() != "close")
            #expect(second.status == 200)
            #expect(second.body == Array("/two".utf8))
            #expect(second.header("connection")?.lowercased() != "close")
        }
    }

    @Test("Pipelined requests are answered in order")
    func pipelined() async throws {
        try await withServer(testConfiguration(), handler: { request in
            HTTPResponse(status: 200, body: Array(request.path.utf8))
        }) { server in
            let port = server.port
            let bodies = try await BlockingCall.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\n\r\n")
                return try (0..<3).map { _ in String(decoding: try connection.readResponse().body, as: UTF8.self) }
            }
            #expect(bodies == ["/1", "/2", "/3"])
        }
    }
}
