import Contracts
import Rules
import Testing

@Suite("Admin calls and a login's client: what a service accepts and keeps")
struct AdminRulesTests {
    @Test("an admin is named within the limit and without control characters; a change needs a reason")
    func adminActor() throws {
        try AdminActor(admin: "ops-kim").check(requiringReason: false)
        try AdminActor(admin: "ops-kim", reason: "fraud report #12").check(requiringReason: true)
        let refused = [
            (AdminActor(admin: ""), false), (AdminActor(admin: "   "), false), (AdminActor(admin: "ops\nkim"), false),
            (AdminActor(admin: String(repeating: "a", count: FieldLimits.adminName + 1)), false),
            (AdminActor(admin: "ops-kim"), true), (AdminActor(admin: "ops-kim", reason: " "), true),
            (AdminActor(admin: "ops-kim", reason: "line\u{0}break"), true),
            (AdminActor(admin: "ops-kim", reason: String(repeating: "r", count: FieldLimits.adminReason + 1)), true),
            (AdminActor(admin: "ops-kim", reason: "tab\there"), false),
        ]
        for (actor, requiringReason) in refused {
            #expect(throws: ServiceFailure.self, "\(actor)") { try actor.check(requiringReason: requiringReason) }
        }
    }

    @Test("a client's fields lose their control characters and are cut at their limits, never refused")
    func clientContext() throws {
        let long = String(repeating: "é", count: FieldLimits.platform)  // two bytes each
        let cleaned = try #require(ClientRules.cleaned(ClientContext(address: " 203.0.113.7\r\n", platform: long, appVersion: "My\u{0}App\u{202E} 2.3")))
        #expect(cleaned.address == "203.0.113.7")
        #expect(cleaned.platform == String(repeating: "é", count: FieldLimits.platform / 2))
        #expect(cleaned.appVersion == "My App 2.3", "a control character is a space, invisible formatting is dropped")
        #expect(ClientRules.cleaned(ClientContext(address: "\u{7}", platform: "  ", appVersion: nil)) == nil)
    }
}
