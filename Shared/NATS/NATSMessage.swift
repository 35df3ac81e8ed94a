/// A message received from NATS: subject, optional reply subject, payload and headers, copied out of the library.
public struct NATSMessage: Sendable {
    /// The subject the message was published to.
    public let subject: String
    /// Where an answer goes (set by `request`), or nil for a plain publish.
    public let replyTo: String?
    /// The message body.
    public let payload: [UInt8]
    /// The message headers (first value of each key); empty when the message has none.
    public let headers: [String: String]

    /// Creates a message; used by tests and by code that forwards messages.
    public init(subject: String, replyTo: String? = nil, payload: [UInt8], headers: [String: String] = [:]) {
        self.subject = subject
        self.replyTo = replyTo
        self.payload = payload
        self.headers = headers
    }
}

extension NATSMessage {
    /// Whether the reply subject is a requester's inbox (`_INBOX.…`, or an identity's `_INBOX_<name>.…`):
    /// the only place a service answers. A request whose reply subject names anything else (a service's
    /// subject, a JetStream acknowledgement) is someone aiming the answer, or a stream's delivery, at a
    /// subject the sender may not publish to itself.
    public var repliesToInbox: Bool {
        guard let replyTo else { return false }
        let bytes = replyTo.utf8
        guard bytes.starts(with: "_INBOX".utf8), bytes.count > 7 else { return false }
        let next = bytes[bytes.index(bytes.startIndex, offsetBy: 6)]
        return next == UInt8(ascii: ".") || next == UInt8(ascii: "_")
    }
}
