import Testing
import Contracts

/// Which of the relay's fixed consumers an endpoint reads, as the consumers' descriptions say.
@Suite("Webhook consumer slots")
struct WebhookSlotTests {
    @Test("a claim is written in the description and read back; anything else is a free slot")
    func descriptions() {
        for slot in [WebhookSlot.free, .claimed(endpoint: "orders", since: 1_700_000_000),
                     .claimed(endpoint: "orders", since: 1_700_000_000, disabled: "0a1b"),
                     .released(endpoint: "orders", since: 1_700_000_000, at: 1_700_000_500),
                     .released(endpoint: "orders", since: 1_700_000_000, at: 1_700_000_500, disabled: "0a1b")] {
            #expect(WebhookSlot(description: slot.description) == slot)
        }
        #expect(WebhookSlot(description: "made by hand") == .free)
        #expect(WebhookSlot(description: "webhook claimed orders soon") == .free)
    }

    private let slots: [(name: String, slot: WebhookSlot)] = [
        ("webhook-01", .claimed(endpoint: "orders", since: 100)),
        ("webhook-02", .released(endpoint: "crm", since: 50, at: 300)),
        ("webhook-03", .free),
        ("webhook-04", .released(endpoint: "old", since: 10, at: 200)),
    ]

    @Test("an endpoint keeps its claim, takes back its released slot with its place, else the first free one")
    func choices() throws {
        let own = try #require(WebhookSlot.choose(for: "orders", among: slots, now: 1_000))
        #expect(own.slot == "webhook-01" && own.claim == .claimed(endpoint: "orders", since: 100) && !own.write)
        let back = try #require(WebhookSlot.choose(for: "crm", among: slots, now: 1_000))
        #expect(back.slot == "webhook-02" && back.claim == .claimed(endpoint: "crm", since: 50) && back.write)
        let disabled = [("webhook-01", WebhookSlot.released(endpoint: "crm", since: 5, at: 9, disabled: "0a1b"))]
        #expect(WebhookSlot.choose(for: "crm", among: disabled, now: 1_000)?.claim == .claimed(endpoint: "crm", since: 5, disabled: "0a1b"),
                "a 410's mark comes back with the slot")
        let new = try #require(WebhookSlot.choose(for: "billing", among: slots, now: 1_000))
        #expect(new.slot == "webhook-03" && new.claim == .claimed(endpoint: "billing", since: 1_000) && new.write)
    }

    @Test("with no free slot, the one released longest ago is taken, from now on; with every slot claimed, none")
    func full() throws {
        let noFree = slots.filter { $0.slot != .free }
        let taken = try #require(WebhookSlot.choose(for: "billing", among: noFree, now: 1_000))
        #expect(taken.slot == "webhook-04" && taken.claim == .claimed(endpoint: "billing", since: 1_000))
        let claimed = [("webhook-01", WebhookSlot.claimed(endpoint: "a", since: 1)), ("webhook-02", .claimed(endpoint: "b", since: 1))]
        #expect(WebhookSlot.choose(for: "c", among: claimed, now: 1_000) == nil)
    }
}
