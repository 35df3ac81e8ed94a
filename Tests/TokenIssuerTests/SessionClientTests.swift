import Contracts
import Testing
@testable import TokenIssuer

/// What a session keeps of the platform and app version a login sent: cleaned and cut, never a refusal.
@Suite("Session client: a login's platform and app version as kept")
struct SessionClientTests {
    @Test("control characters and invisible formatting are dropped, the ends trimmed")
    func cleaned() {
        #expect(SessionClient.clean(" iOS\u{0} 18.1\r\n", maxBytes: 64) == "iOS 18.1")
        #expect(SessionClient.clean("My\u{202E}App 2.3\u{7F}", maxBytes: 64) == "MyApp 2.3")
    }

    @Test("a long value is cut at a character's end within the bound")
    func cut() {
        #expect(SessionClient.clean(String(repeating: "a", count: 100), maxBytes: 64) == String(repeating: "a", count: 64))
        // Three bytes each: 21 fit in 64.
        #expect(SessionClient.clean(String(repeating: "한", count: 30), maxBytes: 64) == String(repeating: "한", count: 21))
        #expect(SessionClient(platform: String(repeating: "p", count: 65), appVersion: nil).platform?.utf8.count == FieldLimits.platform)
    }

    @Test("nothing, or nothing visible, is nil", arguments: [nil, "", "   ", "\u{0}\u{1F}"] as [String?])
    func empty(_ value: String?) {
        #expect(SessionClient.clean(value, maxBytes: 64) == nil)
    }
}
