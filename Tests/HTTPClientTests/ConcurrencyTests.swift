import HTTPClient
import Testing

@Suite("Many requests share one worker and reuse connections")
struct ConcurrencyTests {
    @Test("200 concurrent requests each get their own answer")
    func concurrentRequests() async throws {
        try await withServerAndClient { server, client in
            let answers = try await withThrowingTaskGroup(of: (Int, Echo).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let response = try await client.execute(HTTPClientRequest(
                            url: server.url("/echo?i=\(index)"), method: "POST",
                            headers: [("X-Index", "\(index)")], body: Array("body-\(index)".utf8), timeout: .seconds(20)))
                        return (index, try Echo(response))
                    }
                }
                var answers: [Int: Echo] = [:]
                for try await (index, echo) in group { answers[index] = echo }
                return answers
            }
            #expect(answers.count == 200)
            for (index, echo) in answers {
                #expect(echo.path == "/echo?i=\(index)")
                #expect(echo.headers["x-index"] == "\(index)")
                #expect(echo.body == "body-\(index)")
            }
            // At most maxConnectionsPerHost (16) connections were opened for 200 requests.
            #expect(Set(answers.values.map(\.port)).count <= 16)
        }
    }

    @Test("Sequential requests reuse one keep-alive connection")
    func connectionReuse() async throws {
        try await withServerAndClient { server, client in
            var ports: Set<Int> = []
            for _ in 0..<20 {
                ports.insert(try Echo(try await client.execute(HTTPClientRequest(url: server.url("/echo")))).port)
            }
            #expect(ports.count == 1)
        }
    }

    @Test("Separate clients do not share connections")
    func clientsAreIndependent() async throws {
        let server = try await TestServer.start()
        let first = makeClient()
        let second = makeClient()
        defer { first.shutdown(); second.shutdown() }
        let a = try Echo(try await first.execute(HTTPClientRequest(url: server.url("/echo"))))
        let b = try Echo(try await second.execute(HTTPClientRequest(url: server.url("/echo"))))
        #expect(a.port != b.port)
    }
}
