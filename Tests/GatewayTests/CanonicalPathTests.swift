import HTTPAPI
import HTTPServer
import Testing
@testable import Gateway

@Suite("Canonical paths")
struct CanonicalPathTests {
    /// A request as the server would build it from `target`: MHD decodes the path up to a decoded NUL.
    private func request(_ target: String) -> HTTPRequest {
        let rawPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let decoded = rawPath.removingPercentEncodingLikeMHD()
        return HTTPRequest(method: "GET", path: decoded, target: target)
    }

    @Test("each route's own spelling, with a query or a parameter that needs encoding, is canonical",
          arguments: ["/", "/api/auth/refresh", "/api/auth/sessions/3f2a-9c", "/readyz?services=all", "/api/members/me/identities/%20",
                      "/api/members/me/identities/%C3%A9", "/api/a%25", "/api/a;b=c", "/api/x~y"])
    func canonical(_ target: String) {
        #expect(request(target).hasCanonicalPath)
    }

    @Test("every other spelling is not",
          arguments: ["//api/auth/refresh", "/api/auth//refresh", "/api/auth/refresh/", "/api/auth/%72efresh", "/api/auth/refresh%2f",
                      "/api/auth/refresh%2F", "/api/./auth/refresh", "/api/x/../auth/refresh", "/api/auth/%2e%2e/x", "/api/auth/%2E",
                      "/api/members/me%00", "/api/members/me%0A", "/api/members/me%7F", "/api/members/me/identities/%c3%a9",
                      "/api/a%", "/api/a%4", "/api/a%GG", "api/auth/refresh", "", "*", "http://x/api/auth/refresh",
                      "/api/a b", "/api/a\u{1}", "/api/é", "/api/a#b", "/api/a\"b"])
    func notCanonical(_ target: String) {
        #expect(!request(target).hasCanonicalPath)
    }

    @Test("a target whose decoded path is not the one MHD handed over is not canonical")
    func decodedPathDiffers() {
        #expect(!HTTPRequest(method: "GET", path: "/api/members/me", target: "/api/members/you").hasCanonicalPath)
    }
}

private extension String {
    /// Decodes `%HH` escapes as MHD does, and stops at a decoded NUL as its C string does.
    func removingPercentEncodingLikeMHD() -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                utf8 = utf8.dropFirst(2)
                if value == 0 { break }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
