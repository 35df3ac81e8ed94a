import Collections
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import HTTPTesting
import Synchronization
import Testing

@Suite("Requests reach the handler and responses reach the client")
struct RoundTripTests {
    @Test("GET carries method, decoded path, query, headers and client address; the response its status, headers and body")
    func getRoundTrip() async throws {
        let seen = Mutex<HTTPRequest?>(nil)
        try await withServer(testConfiguration(), handler: { request in
            seen.withLock { $0 = request }
            return HTTPResponse(status: 203, headers: [("X-Answer", "42"), ("Content-Type", "text/plain")],
                                body: Array("hello \(request.query["name"] ?? "?")".utf8))
        }) { server in
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/a%20b/c?name=J%C3%BCrgen&x=1&x=2&flag")!)
            request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
            request.setValue("one", forHTTPHeaderField: "X-Custom")
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 203)
            #expect(http.value(forHTTPHeaderField: "X-Answer") == "42")
            #expect(http.value(forHTTPHeaderField: "Content-Length") == String("hello Jürgen".utf8.count))
            #expect(String(decoding: data, as: UTF8.self) == "hello Jürgen")

            let received = try #require(seen.withLock { $0 })
            #expect(received.method == "GET")
            #expect(received.path == "/a b/c")
            #expect(received.target == "/a%20b/c?name=J%C3%BCrgen&x=1&x=2&flag")
            #expect(received.query == ["name": "Jürgen", "x": "1", "flag": ""])
            #expect(received.header("authorization") == "Bearer abc")
            #expect(received.header("X-CUSTOM") == "one")
            #expect(received.headers["x-custom"] == "one")
            #expect(received.body.isEmpty)
            #expect(!received.bodyTooLarge)
            #expect(received.remoteAddress == "127.0.0.1")
        }
    }

    @Test("POST delivers the body intact and the handler's body comes back")
    func postRoundTrip() async throws {
        let payload = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await withServer(testConfiguration(), handler: { request in
            HTTPResponse(status: 201, headers: [("X-Length", String(request.body.count))], body: request.body.reversed())
        }) { server in
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/upload")!)
            request.httpMethod = "POST"
            request.httpBody = Data(payload)
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 201)
            #expect(http.value(forHTTPHeaderField: "X-Length") == "20000")
            #expect(Array(data) == payload.reversed())
        }
    }

    @Test("Repeated request headers are joined with a comma")
    func repeatedHeaders() async throws {
        let seen = Mutex<String?>(nil)
        try await withServer(testConfiguration(), handler: { request in
            seen.withLock { $0 = request.header("x-multi") }
            return HTTPResponse(status: 204)
        }) { server in
            let port = server.port
            let response = try await BlockingCall.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET / HTTP/1.1\r\nHost: x\r\nX-Multi: a\r\nX-Multi: b\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(response.status == 204)
            #expect(seen.withLock { $0 } == "a, b")
        }
    }

    @Test("HEAD gets the headers and Content-Length of the answer but no body")
    func head() async throws {
        try await withServer(testConfiguration(), handler: { request in
            HTTPResponse(status: 200, body: Array("twelve bytes".utf8))
        }) { server in
            let port = server.port
            let (headResponse, getResponse) = try await BlockingCall.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = try connection.readResponse(head: true)
                // The same connection must carry on at exactly the next response: no stray body bytes were sent.
                try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                return (head, try connection.readResponse())
            }
            #expect(headResponse.status == 200)
            #expect(headResponse.header("content-length") == "12")
            #expect(getResponse.body == Array("twelve bytes".utf8))
        }
    }

    @Test("An empty body is answered with Content-Length: 0, an invalid status as 500")
    func emptyBodyAndInvalidStatus() async throws {
        try await withServer(testConfiguration(), handler: { request in
            HTTPResponse(status: request.path == "/bad" ? 42 : 200)
        }) { server in
            let port = server.port
            let (empty, bad) = try await BlockingCall.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n")
                let empty = try connection.readResponse()
                try connection.send("GET /bad HTTP/1.1\r\nHost: x\r\n\r\n")
                return (empty, try connection.readResponse())
            }
            #expect(empty.status == 200)
            #expect(empty.header("content-length") == "0")
            #expect(bad.status == 500)
        }
    }
}
