import CNats
import Foundation

/// A message read from a stream by ``JetStream/follow(stream:subject:since:)``; followers do not acknowledge.
public struct StreamMessage: Sendable {
    /// The subject the message was published to.
    public let subject: String
    /// The message body.
    public let payload: [UInt8]
    /// The message's sequence number in its stream.
    public let streamSequence: UInt64
}

/// A stream being followed, and where following has caught up with what was stored when it began.
public struct StreamFollower: Sendable {
    /// The messages: first the stored ones, in order, then each new one as it is stored.
    public let messages: Subscription<StreamMessage>
    /// The stream sequence of the last message that was stored for the subject, at or after `since`, when
    /// following began; 0 when there was none. Once a message with this sequence (or a later one) has been
    /// read, everything stored before following began has been read.
    public let caughtUpAt: UInt64
}

extension JetStream {
    /// Follows `subject` in `stream`: every message stored at or after `since` (taken to the whole second
    /// before it), in stream order, then each
    /// new one. It is an ordered consumer: ephemeral, without acknowledgements, and recreated by the library
    /// after a gap or a reconnect, from the last sequence it delivered. Every follower gets every message,
    /// so each replica of a service can follow the same subject.
    ///
    /// Throws ``NATSError/jetStream(_:detail:)`` with 10059 when the stream does not exist.
    public func follow(stream: String, subject: String, since: Date) async throws -> StreamFollower {
        try Subject.validateName(stream, kind: "stream name")
        try Subject.validate(subject, wildcards: true)
        let connection = self.connection
        // Whole seconds, rounded down (so following starts up to a second early): cnats 3.4 writes the fraction
        // of `OptStartTime` without leading zeros (.040 s goes out as ".40"), which would start it late.
        // Clamped to 1970 and 2262 (Int64 nanoseconds); the server takes 0 as "no start time", hence at least 1 s.
        let startSeconds = Int64(min(max(since.timeIntervalSince1970.rounded(.down), 1), 9e9))
        let startNanoseconds = startSeconds * 1_000_000_000
        return try await connection.runBlocking {
            let caughtUpAt = try Self.lastSequence(connection.handle.jetStream, stream: stream, subject: subject,
                                                   notBefore: startNanoseconds)
            let onMessage: natsMsgHandler = { _, _, message, closure in
                defer { natsMsg_Destroy(message) }
                // Only messages with JetStream metadata are stream messages; cnats handles heartbeats itself.
                guard let received = StreamMessage(copying: message!) else { return }
                Unmanaged<MessageChannel<StreamMessage>>.fromOpaque(closure!).takeUnretainedValue().send(received)
            }
            let messages: Subscription<StreamMessage> = try connection.makeSubscription(subject: subject, queue: nil) { closure in
                var options = jsSubOptions()
                try check(jsSubOptions_Init(&options), "init subscribe options")
                var subscription: OpaquePointer?
                var errorCode = jsErrCode(0)
                let status = stream.withCString { streamPointer in
                    options.Stream = streamPointer
                    options.Ordered = true
                    options.Config.DeliverPolicy = js_DeliverByStartTime
                    options.Config.OptStartTime = startNanoseconds
                    return js_Subscribe(&subscription, connection.handle.jetStream, subject, onMessage, closure, nil,
                                        &options, &errorCode)
                }
                try checkJS(status, errorCode, "follow '\(subject)' in '\(stream)'")
                guard let subscription else { throw NATSError(code: .protocolError, detail: "js_Subscribe returned no subscription") }
                return subscription
            }
            return StreamFollower(messages: messages, caughtUpAt: caughtUpAt)
        }
    }

    /// The sequence of the last message stored for `subject` if it was stored at or after `notBefore`
    /// (nanoseconds since 1970), else 0.
    ///
    /// The stream's info comes first, and an empty stream is not asked for its last message:
    /// nats-server 2.9 (Debian 12's) lists a stream being created before its store exists, and a
    /// `STREAM.MSG.GET` in that window dereferences the missing store and kills the server (fixed in
    /// 2.9.15, which lists a stream once its store is set up). The info request checks for the store
    /// and reports such a stream as empty, and a stream with a message has its store.
    private static func lastSequence(_ jetStream: OpaquePointer, stream: String, subject: String, notBefore: Int64) throws -> UInt64 {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var infoError = jsErrCode(0)
        let infoStatus = js_GetStreamInfo(&info, jetStream, stream, nil, &infoError)
        defer { if let info { jsStreamInfo_Destroy(info) } }
        try checkJS(infoStatus, infoError, "read stream '\(stream)'")
        guard let info, info.pointee.State.LastSeq > 0 else { return 0 }
        var message: OpaquePointer?
        var errorCode = jsErrCode(0)
        let status = js_GetLastMsg(&message, jetStream, stream, subject, nil, &errorCode)
        defer { if let message { natsMsg_Destroy(message) } }
        if errorCode == JSNoMessageFoundErr { return 0 }
        try checkJS(status, errorCode, "read the last '\(subject)' in '\(stream)'")
        guard let message else { return 0 }
        return natsMsg_GetTime(message) >= notBefore ? natsMsg_GetSequence(message) : 0
    }
}

extension StreamMessage {
    /// Copies a message delivered to a follower out of cnats; nil when it carries no JetStream metadata.
    init?(copying message: OpaquePointer) {
        var metadata: UnsafeMutablePointer<jsMsgMetaData>?
        guard natsMsg_GetMetaData(&metadata, message) == NATS_OK, let metadata else { return nil }
        defer { jsMsgMetaData_Destroy(metadata) }
        subject = natsMsg_GetSubject(message).map { String(cString: $0) } ?? ""
        payload = NATSMessage.payload(of: message)
        streamSequence = metadata.pointee.Sequence.Stream
    }
}
