import Contracts
import Rules
import Testing

@Suite("Client rules: the platform and app version a login's User-Agent names, cleaned and bounded")
struct ClientRulesTests {
    @Test("Real apps' and browsers' User-Agents name their platform and app", arguments: [
        ("MyApp/2.3.1 (com.example.myapp; build:45; iOS 17.4.1) Alamofire/5.8.0", "iOS 17.4.1", "MyApp 2.3.1"),
        ("MyApp/2.3.1 (com.example.myapp; build:45; iPadOS 17.4) Alamofire/5.8.0", nil, "MyApp 2.3.1"),
        ("MyApp/45 CFNetwork/1494.0.7 Darwin/23.4.0", "Darwin 23.4.0", "MyApp 45"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
         "iOS 17.4", nil),
        ("Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", "iPadOS 16.6", nil),
        ("Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UD1A.230803.041)", "Android 14", nil),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
         "macOS 10.15.7", nil),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36", "Windows", nil),
        ("okhttp/4.12.0", nil, nil),
        ("curl/8.5.0", nil, nil),
        ("", nil, nil),
    ] as [(String, String?, String?)])
    func describes(userAgent: String, platform: String?, appVersion: String?) {
        let described = ClientRules.describe(userAgent: userAgent)
        // An iPad that says "iPadOS 17.4" in Alamofire's words is read by the browser rule's marker only when
        // present; the Alamofire form names iOS, so an iPad's Alamofire string without "iOS " names no platform.
        #expect(described.platform == platform, "\(userAgent)")
        #expect(described.appVersion == appVersion, "\(userAgent)")
    }

    @Test("What a User-Agent says is cleaned and cut: control and invisible characters go, a long value stops at its limit")
    func cleansAndBounds() {
        let long = "App" + String(repeating: "x", count: 300) + "/1.0 (iOS 17." + String(repeating: "1", count: 200) + ")"
        let described = ClientRules.describe(userAgent: long)
        #expect((described.appVersion?.utf8.count ?? 0) <= FieldLimits.appVersion)
        #expect((described.platform?.utf8.count ?? 0) <= FieldLimits.platform)
        #expect(described.platform?.hasPrefix("iOS 17.") == true)
        let cleaned = ClientRules.cleaned(ClientContext(address: " 203.0.113.9\u{0}", platform: "iOS\u{202E} 18.1\n", appVersion: "\u{200B}\u{1}"))
        #expect(cleaned == ClientContext(address: "203.0.113.9", platform: "iOS 18.1", appVersion: nil))
        #expect(ClientRules.cleaned(nil) == nil)
    }

    @Test("a long text costs its first bytes only: a megabyte of regional indicators (whose trim, one character at a time, once cost minutes) is cut to its bound",
          .timeLimit(.minutes(1)))
    func longTextIsCheap() throws {
        let flags = String(repeating: "\u{1F1E6}", count: 250_000)
        let cleaned = try #require(ClientRules.cleaned(ClientContext(address: flags, platform: flags, appVersion: flags)))
        #expect((cleaned.platform?.utf8.count ?? 0) <= FieldLimits.platform && (cleaned.platform?.utf8.count ?? 0) > 0)
        #expect((cleaned.address?.utf8.count ?? 0) <= FieldLimits.clientAddress)
        #expect((ProfileRules.providerName(flags)?.utf8.count ?? 0) <= ProfileRules.nameMaxBytes)
        let accents = "a" + String(repeating: "\u{301}", count: 15_000)
        #expect((ClientRules.describe(userAgent: "App/1.0 " + accents).appVersion?.utf8.count ?? 0) <= FieldLimits.appVersion)
    }
}
