/// A message from a JetStream consumer; acknowledge it with ``ack()``, ``nak(delay:)`` or ``term()``.
public struct JetStreamMessage: Sendable {
    /// The subject the message was published to.
    public let subject: String
    /// The message body.
    public let payload: [UInt8]
    /// The message headers (first value of each key).
    public let headers: [String: String]
    /// How many times this message was delivered, this time included (1 on the first delivery).
    public let deliveryCount: Int
    /// The message's sequence number in its stream.
    public let streamSequence: UInt64
    /// When the consumer fetched it, in uptime nanoseconds (`DeadlineTimer.now`): its ack wait runs from then.
    public let receivedAt: UInt64
    /// When the stream stored it, in nanoseconds since 1970.
    public let storedAt: Int64
    /// The subject acknowledgements go to (`$JS.ACK...`).
    let ackSubject: String
    let connection: NATSConnection

    /// Acknowledges the message: it will not be delivered again. Returns once the server confirmed it.
    public func ack() async throws {
        try await acknowledge("+ACK")
    }

    /// Acknowledges the message without waiting for the server's confirmation: for a consumer whose handling
    /// is idempotent, where a lost acknowledgement costs only one more delivery, and a batch's acknowledgements
    /// cost a publish each rather than a round trip.
    public func ackWithoutConfirmation() throws {
        try connection.publish(ackSubject, reply: nil, Array("+ACK".utf8), headers: [:])
    }

    /// Declines the message: it is delivered again (to any replica) after `delay`, or at once when nil.
    public func nak(delay: Duration? = nil) async throws {
        if let delay {
            try await acknowledge("-NAK {\"delay\":\(max(0, delay.nanoseconds))}")
        } else {
            try await acknowledge("-NAK")
        }
    }

    /// Declines the message for immediate redelivery without waiting for the server's confirmation: for a message
    /// given back unhandled (a consumer stopping), where a lost one only means it comes again after the ack wait.
    public func nakWithoutConfirmation() throws {
        try connection.publish(ackSubject, reply: nil, Array("-NAK".utf8), headers: [:])
    }

    /// Tells the server the message can never be processed: it is not delivered again.
    public func term() async throws {
        try await acknowledge("+TERM")
    }

    /// Tells the server that work on the message is still going on, resetting its ack timer. It does not
    /// wait for the server's answer, unlike the others: a heartbeat leaves on time whatever an earlier
    /// one's answer is doing (one slow answer, awaited, let the ack wait run out under load).
    public func signalInProgress() throws {
        try connection.publish(ackSubject, reply: nil, Array("+WPI".utf8), headers: [:])
    }

    /// Sends an acknowledgement as a request: the server answers it, so the caller knows it arrived, and
    /// the answer comes through the shared inbox rather than a blocked thread (as `natsMsg_AckSync` would).
    private func acknowledge(_ body: String) async throws {
        _ = try await connection.request(ackSubject, Array(body.utf8), timeout: .seconds(5))
    }
}
