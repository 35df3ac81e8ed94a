import Contracts
import Messaging
import NATS
import Testing

/// The relay reads a slot's consumer only as the member-service makes it: a consumer the member-service's identity
/// changed (it may set them) to skip events, lose their bodies or hold them back is told and left unread.
@Suite("A webhook slot's consumer is read only as the member-service makes it")
struct WebhookSlotConsumerTests {
    /// The configuration the member-service makes.
    static var made: JetStream.ConsumerConfiguration {
        var configuration = JetStream.ConsumerConfiguration()
        configuration.filterSubject = Events.WebhookSlotSettings.filterSubject
        configuration.ackWait = Events.WebhookSlotSettings.ackWait
        return configuration
    }

    @Test("as made, with a start time or from the first event, and with the server's defaults: no flaw")
    func asMade() {
        #expect(WebhookSlotProvisioning.flaws(of: Self.made).isEmpty)
        var started = Self.made
        started.startTime = .now
        started.maxAckPending = 1_000
        started.maxRequestBatch = 256
        started.maxRequestExpires = .seconds(30)
        #expect(WebhookSlotProvisioning.flaws(of: started).isEmpty)
    }

    /// `made` with one change, by name.
    static func changed(_ name: String) -> JetStream.ConsumerConfiguration {
        var c = made
        switch name {
        case "push": c.deliverSubject = "auth.issuer.rotate-keys"
        case "filter": c.filterSubject = "events.session.>"
        case "ack all": c.acknowledgesEach = false
        case "ack wait": c.ackWait = .seconds(1)
        case "max deliver": c.maxDeliver = 1
        case "start": c.startsElsewhere = true
        case "headers": c.headersOnly = true
        case "replay": c.replaysInstantly = false
        case "back-off": c.hasBackOff = true
        case "inactive": c.inactiveThreshold = .seconds(5)
        case "memory": c.memoryStorage = true
        case "ack pending": c.maxAckPending = 1
        case "batch": c.maxRequestBatch = 1
        case "expires": c.maxRequestExpires = .milliseconds(10)
        case "bytes": c.maxRequestMaxBytes = 10
        default: Issue.record("unknown change \(name)")
        }
        return c
    }

    @Test("each change that loses, skips or holds back events is a flaw, named", arguments: [
        ("push", "push consumer"), ("filter", "events.session.>"), ("ack all", "one by one"), ("ack wait", "ack wait"),
        ("max deliver", "after 1 deliveries"), ("start", "starts"), ("headers", "headers"), ("replay", "pace"),
        ("back-off", "back-off"), ("inactive", "deletes"), ("memory", "memory"), ("ack pending", "1 events"),
        ("batch", "fetches of 1"), ("expires", "wait"), ("bytes", "10 bytes"),
    ])
    func flaw(_ name: String, _ told: String) {
        let flaws = WebhookSlotProvisioning.flaws(of: Self.changed(name))
        #expect(flaws.count == 1, "\(name): \(flaws)")
        #expect(flaws.first?.contains(told) == true, "\(name): \(flaws)")
    }
}
