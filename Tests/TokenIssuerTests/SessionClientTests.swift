import Contracts
import Testing
@testable import TokenIssuer

/// What a session keeps of the platform and app version a login sent: cleaned and cut, never a refusal.
@Suite("Session client: a login's platform and app version as kept")
struct SessionClientTests {
    @Test("a control character becomes a space, invisible formatting is dropped, the ends trimmed")
    func cleaned() {
        #expect(SessionClient(platform: " iOS\u{0}18.1\r\n", appVersion: "My\u{202E}App 2.3\u{7F}")
            == SessionClient(platform: "iOS 18.1", appVersion: "MyApp 2.3"))
    }

    @Test("a long value is cut at a character's end within the bound")
    func cut() {
        #expect(SessionClient(platform: String(repeating: "a", count: 100), appVersion: nil).platform == String(repeating: "a", count: 64))
        // Three bytes each: 21 fit in 64.
        #expect(SessionClient(platform: nil, appVersion: String(repeating: "한", count: 30)).appVersion == String(repeating: "한", count: 21))
        #expect(SessionClient(platform: String(repeating: "p", count: 65), appVersion: nil).platform?.utf8.count == FieldLimits.platform)
    }

    @Test("nothing, or nothing visible, is nil", arguments: [nil, "", "   ", "\u{0}\u{1F}"] as [String?])
    func empty(_ value: String?) {
        #expect(SessionClient(platform: value, appVersion: value) == .unknown)
    }
}
