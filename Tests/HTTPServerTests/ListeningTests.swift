import Collections
import HTTPServer
import HTTPTesting
import Logging
import Testing

@Suite("Binding ports")
struct ListeningTests {
    private func server(_ configuration: HTTPServer.Configuration) -> HTTPServer {
        HTTPServer(configuration: configuration, logger: Logger(label: "http-test", level: .critical)) { _ in
            HTTPResponse(status: 200, body: Array("ok".utf8))
        }
    }

    @Test("Port 0 binds a real free port, and the server answers on it")
    func portZero() async throws {
        let first = server(testConfiguration())
        #expect(first.port == 0)
        try first.start()
        defer { first.stop() }
        #expect(first.port > 0 && first.port <= 65535)
        let port = first.port
        let response = try await BlockingCall.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.body == Array("ok".utf8))
    }

    @Test("One thread (no pool) serves too")
    func singleThread() async throws {
        let single = server(testConfiguration { $0.threads = 1 })
        try single.start()
        defer { single.stop() }
        let port = single.port
        let statuses = try await BlockingCall.run {
            let connection = try RawHTTPConnection(port: port)
            return try (0..<3).map { _ in
                try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                return try connection.readResponse().status
            }
        }
        #expect(statuses == [200, 200, 200])
    }

    @Test("Two servers with reusePort share one port")
    func reusePort() throws {
        let first = server(testConfiguration { $0.reusePort = true })
        try first.start()
        defer { first.stop() }
        let second = server(testConfiguration { $0.reusePort = true; $0.port = first.port })
        try second.start()
        defer { second.stop() }
        #expect(second.port == first.port)
    }

    @Test("Starting on a taken port without reusePort throws bindFailed")
    func takenPort() throws {
        let first = server(testConfiguration())
        try first.start()
        defer { first.stop() }
        let second = server(testConfiguration { $0.port = first.port })
        let error = #expect(throws: HTTPServerError.self) { try second.start() }
        #expect(error == .bindFailed(host: "127.0.0.1", port: first.port))
        #expect(error?.description.contains(String(first.port)) == true)
    }

    @Test("A host that is not an IP address, or an out-of-range value, is refused before binding")
    func invalidConfiguration() {
        #expect(throws: HTTPServerError.invalidHost("localhost")) {
            try server(testConfiguration { $0.host = "localhost" }).start()
        }
        #expect(throws: HTTPServerError.self) { try server(testConfiguration { $0.port = 70000 }).start() }
        #expect(throws: HTTPServerError.self) { try server(testConfiguration { $0.threads = 0 }).start() }
    }

    @Test("An IPv6 loopback server answers and reports the client's IPv6 address")
    func ipv6() async throws {
        let server = HTTPServer(configuration: testConfiguration { $0.host = "::1" },
                                logger: Logger(label: "http-test", level: .critical)) { request in
            HTTPResponse(status: 200, body: Array(request.remoteAddress.utf8))
        }
        try server.start()
        defer { server.stop() }
        let port = server.port
        #expect(port > 0)
        let response = try await BlockingCall.run {
            let connection = try RawHTTPConnection(port: port, ipv6: true)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(String(decoding: response.body, as: UTF8.self) == "::1")
    }
}
