import NATS
import Testing

/// Which reply subjects a service answers on: inboxes only.
@Suite("Inbox reply subjects")
struct InboxReplyTests {
    @Test("_INBOX. and _INBOX_<identity>. are inboxes; service subjects, lookalikes and none are not",
          arguments: [("_INBOX.abc.1", true), ("_INBOX_gateway.abc.1", true), ("_INBOX_operator.x", true),
                      ("_INBOX", false), ("_INBOX.", false), ("_INBOXES.x", false), ("INBOX.x", false), ("_inbox.x", false),
                      ("auth.issuer.rotate-keys", false), ("$JS.ACK.AUTH_EVENTS.d.1.1.1.1.0", false), ("x._INBOX.y", false)])
    func inbox(_ reply: String, _ expected: Bool) {
        #expect(NATSMessage(subject: "s", replyTo: reply, payload: []).repliesToInbox == expected)
    }

    @Test("a message without a reply subject has no inbox")
    func none() {
        #expect(!NATSMessage(subject: "s", payload: []).repliesToInbox)
    }
}
