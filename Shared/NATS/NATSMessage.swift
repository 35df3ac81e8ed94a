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
