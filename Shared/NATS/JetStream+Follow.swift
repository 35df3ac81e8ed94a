import CNats
import Collections
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
    /// after a gap, a reconnect or the loss of the cluster node it lived on, from the last sequence it
    /// delivered. Every follower gets every message, so each replica of a service can follow the same subject.
    ///
    /// The consumer starts at a sequence, which the server looks up for the time first
    /// (``startSequence(_:stream:subject:notBefore:)``): cnats 3.4 recreates an ordered consumer by start
    /// sequence but keeps the start time it was made with, and the server refuses that pair, so a
    /// consumer made by time was never recreated and its follower saw nothing more after a node was lost.
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
        return try await BlockingCall.run {
            let caughtUpAt = try Self.lastSequence(connection.handle.jetStream, stream: stream, subject: subject,
                                                   notBefore: startNanoseconds)
            let startSequence = try Self.startSequence(connection.handle.jetStream, stream: stream, subject: subject,
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
                    options.Config.DeliverPolicy = js_DeliverByStartSequence
                    options.Config.OptStartSeq = startSequence
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

    /// The sequence of the first message stored at or after `notBefore` (nanoseconds since 1970), or the
    /// one the next message will get when there is none: the server's own answer, read from a pull
    /// consumer made for the question (by start time, without acknowledgements, in memory) and deleted
    /// again; the server drops it by itself 30 s after the client, should the delete be lost.
    private static func startSequence(_ jetStream: OpaquePointer, stream: String, subject: String, notBefore: Int64) throws -> UInt64 {
        var config = jsConsumerConfig()
        try check(jsConsumerConfig_Init(&config), "init consumer config")
        config.DeliverPolicy = js_DeliverByStartTime
        config.OptStartTime = notBefore
        config.AckPolicy = js_AckNone
        config.MemoryStorage = true
        config.Replicas = 1
        config.InactiveThreshold = 30_000_000_000
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var errorCode = jsErrCode(0)
        let status = subject.withCString { subjectPointer in
            config.FilterSubject = subjectPointer
            return js_AddConsumer(&info, jetStream, stream, &config, nil, &errorCode)
        }
        try checkJS(status, errorCode, "find where '\(subject)' in '\(stream)' starts")
        guard let info else { throw NATSError(code: .protocolError, detail: "js_AddConsumer returned no consumer info") }
        defer { jsConsumerInfo_Destroy(info) }
        if let name = info.pointee.Name {
            var deleteError = jsErrCode(0)
            _ = js_DeleteConsumer(jetStream, stream, name, nil, &deleteError)
        }
        // A consumer about to deliver sequence N reports N - 1 as delivered.
        return info.pointee.Delivered.Stream + 1
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
