import HTTPClient
import Testing

@Suite("Requests and responses round-trip")
struct RoundTripTests {
    @Test("GET sends the method, URL and headers, and returns status, headers and body")
    func getRoundTrip() async throws {
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(
                url: server.url("/echo?q=1"), headers: [("X-Trace", "abc"), ("Accept", "application/json")]))
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let echo = try Echo(response)
            #expect(echo.method == "GET")
            #expect(echo.path == "/echo?q=1")
            #expect(echo.headers["x-trace"] == "abc")
            #expect(echo.headers["accept"] == "application/json")
            #expect(echo.headers["user-agent"] == "social-login/1")
            #expect(echo.body == "")
        }
    }

    @Test("POST sends the body and its headers, without libcurl's default Content-Type or Expect")
    func postRoundTrip() async throws {
        try await withServerAndClient { server, client in
            let body = Array("{\"name\":\"kim\"}".utf8)
            let response = try await client.execute(HTTPClientRequest(
                url: server.url("/echo"), method: "POST", headers: [("Content-Type", "application/json")], body: body))
            #expect(response.status == 200)
            let echo = try Echo(response)
            #expect(echo.method == "POST")
            #expect(echo.body == "{\"name\":\"kim\"}")
            #expect(echo.headers["content-type"] == "application/json")
            #expect(echo.headers["content-length"] == "\(body.count)")
            #expect(echo.headers["expect"] == nil)

            let bare = try Echo(try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", body: [1, 2])))
            #expect(bare.headers["content-type"] == nil)
            #expect(bare.body == "\u{1}\u{2}")
        }
    }

    @Test("Other methods are sent as given", arguments: ["PUT", "DELETE", "PATCH"])
    func otherMethods(method: String) async throws {
        try await withServerAndClient { server, client in
            let withBody = try Echo(try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: method, body: Array("b".utf8))))
            #expect(withBody.method == method)
            #expect(withBody.body == "b")
            let withoutBody = try Echo(try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: method)))
            #expect(withoutBody.method == method)
            #expect(withoutBody.body == "")
        }
    }

    @Test("A request after a POST on the same pooled handle is a plain GET again")
    func handleResetBetweenRequests() async throws {
        try await withServerAndClient { server, client in
            _ = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", headers: [("X-Once", "1")], body: [65]))
            let echo = try Echo(try await client.execute(HTTPClientRequest(url: server.url("/echo"))))
            #expect(echo.method == "GET")
            #expect(echo.body == "")
            #expect(echo.headers["x-once"] == nil)
        }
    }

    @Test("HEAD returns headers and no body")
    func head() async throws {
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/cache"), method: "HEAD"))
            #expect(response.status == 200)
            #expect(response.header("cache-control") == "public, max-age=300")
            #expect(response.body.isEmpty)
        }
    }

    @Test("Error statuses are passed through as responses", arguments: [404, 500, 503])
    func statusPassedThrough(status: Int) async throws {
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/status/\(status)")))
            #expect(response.status == status)
            #expect(try Echo(response).path == "/status/\(status)")
        }
    }

    @Test("Response headers are readable by any case")
    func responseHeaders() async throws {
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/cache")))
            #expect(response.headers["cache-control"] == "public, max-age=300")
            #expect(response.header("Cache-Control") == "public, max-age=300")
            #expect(response.header("CACHE-CONTROL") == "public, max-age=300")
            #expect(response.header("X-Missing") == nil)
        }
    }

    @Test("Redirects are returned, not followed")
    func redirectNotFollowed() async throws {
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/redirect")))
            #expect(response.status == 302)
            #expect(response.header("location") == "/echo")
            // The body is the 302's own: a followed redirect would have brought /echo's.
            #expect(try Echo(response).path == "/redirect")
        }
    }
}
