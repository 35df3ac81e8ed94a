import Collections
import HTTPServer
import HTTPTesting
import Synchronization
import Testing

@Suite("The request target as sent")
struct RequestTargetTests {
    @Test("the handler gets the target exactly as sent beside the path MHD decoded, which hides %72, %2f and %00",
          arguments: [
            ("//api/auth/refresh", "//api/auth/refresh"),
            ("/api/auth/%72efresh", "/api/auth/refresh"),
            ("/api/auth/refresh%2f?a=%41", "/api/auth/refresh/"),
            ("/./api/../x", "/./api/../x"),
            ("/api/members/me%00more", "/api/members/me"),
          ])
    func target(_ sent: String, _ decoded: String) async throws {
        let seen = Mutex<(String, String)?>(nil)
        try await withServer(testConfiguration(), handler: { request in
            seen.withLock { $0 = (request.path, request.target) }
            return HTTPResponse(status: 204)
        }) { server in
            let port = server.port
            let response = try await BlockingCall.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET \(sent) HTTP/1.1\r\nHost: x\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(response.status == 204)
            let (path, target) = try #require(seen.withLock { $0 })
            #expect(path == decoded)
            #expect(target == sent)
        }
    }
}
