import CNats
import Collections
import Logging

/// A connection to NATS: publish, request/reply, subscriptions and JetStream, safe to share between tasks.
///
/// After the first successful connect it reconnects by itself (forever by default) and keeps its
/// subscriptions; while it is down, `request` fails fast with ``NATSError/notConnected``.
public final class NATSConnection: Sendable {
    let handle: ConnectionHandle
    let events: ConnectionEvents
    let configuration: Configuration
    let logger: Logger

    var multiplexer: RequestMultiplexer { events.multiplexer }

    private init(handle: ConnectionHandle, events: ConnectionEvents, configuration: Configuration, logger: Logger) {
        self.handle = handle
        self.events = events
        self.configuration = configuration
        self.logger = logger
    }

    /// Connects to the first reachable server of `configuration.url`.
    ///
    /// Throws ``NATSError/connectionFailed`` if no server answers now (the caller decides whether to retry);
    /// once connected, the connection reconnects by itself.
    public static func connect(_ configuration: Configuration, logger: Logger) async throws -> NATSConnection {
        let servers = configuration.servers
        guard !servers.isEmpty else {
            throw NATSError(code: .invalidArgument, detail: "no server URL in '\(configuration.url)'")
        }
        let logger = logger.with(["nats.connection": configuration.name])
        let events = ConnectionEvents(logger: logger, multiplexer: try RequestMultiplexer(inboxPrefix: configuration.access.inboxPrefix))
        let handle = try await BlockingCall.run { try open(configuration, servers: servers, events: events) }
        logger.info("NATS connected", ["nats.servers": servers.joined(separator: ",")])
        return NATSConnection(handle: handle, events: events, configuration: configuration, logger: logger)
    }

    /// How many times the server refused a publish or subscription of this connection for lack of
    /// permission (SPEC section 9); each is also logged as an error.
    public var permissionViolations: Int { events.permissionViolations }

    /// Yields each time messages of this connection's plain subscriptions may have been lost (a reconnect,
    /// or a subscription that fell behind and had messages dropped); finishes when the connection closes.
    /// A follower of a subject reads what it missed from where that is kept when this yields.
    public func gaps() -> AsyncStream<Void> {
        events.gaps()
    }

    /// True while the connection is up (not reconnecting, draining or closed).
    public var isConnected: Bool {
        natsConnection_Status(handle.connection) == NATS_CONN_STATUS_CONNECTED
    }

    /// Publishes `payload` to `subject`, with optional headers; returns once the message is handed to the library.
    public func publish(_ subject: String, _ payload: [UInt8], headers: [String: String] = [:]) throws {
        try Subject.validate(subject, wildcards: false)
        try publish(subject, reply: nil, payload, headers: headers)
    }

    /// Answers a request: publishes `payload` to `message.replyTo`; throws ``NATSError/noReplySubject`` if it has
    /// none, or if it is not an inbox (`_INBOX.…` or an identity's `_INBOX_<name>.…`).
    ///
    /// The server lets a service answer any reply subject a caller names (`allow_responses`), even one its
    /// own permissions deny; a caller could so aim the answer at the JetStream API (a purge) or an event
    /// subject. Answering inboxes only closes that.
    public func respond(to message: NATSMessage, _ payload: [UInt8], headers: [String: String] = [:]) throws {
        guard let replyTo = message.replyTo else {
            throw NATSError(code: .noReplySubject, detail: "message on '\(message.subject)' has no reply subject")
        }
        guard replyTo.utf8.starts(with: "_INBOX.".utf8) || replyTo.utf8.starts(with: "_INBOX_".utf8) else {
            throw NATSError(code: .noReplySubject, detail: "message on '\(message.subject)' asks for its answer on '\(replyTo)', not an inbox")
        }
        try publish(replyTo, reply: nil, payload, headers: headers)
    }

    /// Waits until the server has processed everything published so far (a PING/PONG round trip).
    public func flush(timeout: Duration) async throws {
        let handle = handle
        let milliseconds = max(1, timeout.milliseconds)
        try await BlockingCall.run {
            try check(natsConnection_FlushTimeout(handle.connection, milliseconds), "flush")
        }
    }

    /// Drains the subscriptions (their queued messages are still delivered), then closes the connection.
    /// Calling it again, or on a closed connection, just waits for the close.
    public func drainAndClose() async {
        guard !events.isClosed else { return }
        let status = natsConnection_DrainTimeout(handle.connection, max(1, configuration.drainTimeout.milliseconds))
        switch status {
        case NATS_OK, NATS_DRAINING:
            break
        case NATS_CONNECTION_CLOSED:
            return
        default:
            // Draining needs a live connection; while reconnecting, close right away.
            logger.info("NATS drain not possible, closing", ["nats.status": String(cString: natsStatus_GetText(status))])
            let handle = handle
            BlockingCall.start { natsConnection_Close(handle.connection) }
        }
        await events.waitUntilClosed()
    }

    /// JetStream on this connection: streams, persistent publish and durable consumers.
    public var jetStream: JetStream { JetStream(connection: self) }

    /// Publishes with an optional reply subject (already validated or generated by this module).
    func publish(_ subject: String, reply: UnsafePointer<CChar>?, _ payload: [UInt8], headers: [String: String]) throws {
        guard payload.count <= Int32.max else {
            throw NATSError(code: .invalidArgument, detail: "payload of \(payload.count) bytes is too large")
        }
        let connection = handle.connection
        try subject.withCString { subjectPointer in
            try payload.withUnsafeBytes { bytes in
                if headers.isEmpty {
                    // cnats rejects a NULL reply in PublishRequest; plain Publish is the no-reply form.
                    let status = if let reply {
                        natsConnection_PublishRequest(connection, subjectPointer, reply, bytes.baseAddress, Int32(bytes.count))
                    } else {
                        natsConnection_Publish(connection, subjectPointer, bytes.baseAddress, Int32(bytes.count))
                    }
                    try check(status, "publish to '\(subject)'")
                    return
                }
                var message: OpaquePointer?
                try check(natsMsg_Create(&message, subjectPointer, reply,
                                         bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count)),
                          "create message for '\(subject)'")
                defer { natsMsg_Destroy(message) }
                for (key, value) in headers {
                    try check(natsMsgHeader_Set(message, key, value), "set header '\(key)'")
                }
                try check(natsConnection_PublishMsg(connection, message), "publish to '\(subject)'")
            }
        }
    }
}
