import Foundation
import Testing
import WebhookRelay
import Webhooks

/// `WEBHOOKS_FILE`: every endpoint checked, each problem named by endpoint and field, never showing a secret.
@Suite("Webhooks file")
struct WebhookEndpointTests {
    static let secret = "whsec_" + Data(repeating: 1, count: 32).base64EncodedString()

    private func entry(name: String = "orders", url: String = "https://api.example.com/hooks/auth", secret: String = secret,
                       events: String = #"["member.created", "member.deleted"]"#, extra: String = "") -> String {
        #"{"name": "\#(name)", "url": "\#(url)", "secret": "\#(secret)", "events": \#(events)\#(extra)}"#
    }

    @Test("a good file gives its endpoints, their types or *")
    func parses() throws {
        let endpoints = try WebhookEndpoint.list(parsing: "[\(entry()), \(entry(name: "all_2", events: #"["*"]"#))]", allowHTTP: false)
        #expect(endpoints.map(\.name) == ["orders", "all_2"])
        #expect(endpoints[0].wants("member.created") && !endpoints[0].wants("member.logged-in"))
        #expect(endpoints[0].wantsSubject("events.member.deleted") && !endpoints[0].wantsSubject("events.session.ended"))
        #expect(endpoints[1].events == .all && endpoints[1].wants("session.ended"))
        #expect(try WebhookEndpoint.list(parsing: "[]", allowHTTP: false).isEmpty)
    }

    @Test("each mistake is named by endpoint and field, and no message carries the secret",
          arguments: [
              ("{}", "not a JSON array"),
              ("[1]", "endpoint 1: not an object"),
              (#"[{"url": "https://a.example"}]"#, "endpoint 1: 'name' is missing"),
              ("[{\"name\": \"Orders\"}]", "'name' must be"),
              ("[{\"name\": \"a.b\"}]", "'name' must be"),
              ("[{\"name\": \"\(String(repeating: "a", count: 49))\"}]", "'name' must be"),
          ])
    func shapes(_ text: String, _ expected: String) {
        #expect(throws: (any Error).self) { try WebhookEndpoint.list(parsing: text, allowHTTP: false) }
        let message = (try? WebhookEndpoint.list(parsing: text, allowHTTP: false)).map { _ in "" } ?? problem(text)
        #expect(message.contains(expected), "\(message)")
    }

    @Test("fields checked one by one")
    func fields() {
        let cases: [(String, String)] = [
            (entry(url: "http://api.example.com/hooks"), "'url' must be https"),
            (entry(url: "ftp://api.example.com/hooks"), "'url' must be https"),
            (entry(url: "https:///nohost"), "has no host"),
            (entry(url: "https://user:pass@api.example.com/"), "user name or password"),
            (entry(url: "not a url"), "'url'"),
            (entry(secret: "secret"), "does not start with 'whsec_'"),
            (entry(secret: "whsec_" + Data(count: 8).base64EncodedString()), "8 bytes"),
            (entry(events: "[]"), "'events' must be a non-empty array"),
            (entry(events: #"["member.exploded"]"#), "unknown type 'member.exploded'"),
            (entry(events: "[1]"), "other than a string"),
            (entry(extra: #", "retries": 3"#), "unknown field 'retries'"),
            ("[\(entry()), \(entry())]", "endpoint 2 ('orders'): the name is used twice"),
        ]
        for (text, expected) in cases {
            let wrapped = text.hasPrefix("[") ? text : "[\(text)]"
            let message = problem(wrapped)
            #expect(message.contains(expected), "\(text): \(message)")
            #expect(message.contains("orders") || expected.contains("array"), "the endpoint is named: \(message)")
            #expect(!message.contains(Self.secret.dropFirst(6)), "the secret leaked: \(message)")
        }
    }

    @Test("at most 32 endpoints: one consumer of the relay's each")
    func capacity() {
        let entries = (1...33).map { entry(name: "e\($0)") }.joined(separator: ", ")
        #expect(problem("[\(entries)]").contains("33 endpoints; the relay serves 32 at most"))
    }

    @Test("http is taken only when allowed")
    func allowHTTP() throws {
        let endpoints = try WebhookEndpoint.list(parsing: "[\(entry(url: "http://127.0.0.1:9400/webhooks/dev"))]", allowHTTP: true)
        #expect(endpoints.first?.url == "http://127.0.0.1:9400/webhooks/dev")
    }

    private func problem(_ text: String) -> String {
        do {
            _ = try WebhookEndpoint.list(parsing: text, allowHTTP: false)
            return "no error"
        } catch {
            return String(describing: error)
        }
    }
}
