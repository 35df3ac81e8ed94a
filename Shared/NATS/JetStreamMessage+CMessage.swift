import CNats
import Collections

extension JetStreamMessage {
    /// Copies a message fetched from a JetStream consumer, with its delivery metadata, out of cnats.
    init(copying message: OpaquePointer, connection: NATSConnection) throws {
        var metadata: UnsafeMutablePointer<jsMsgMetaData>?
        try check(natsMsg_GetMetaData(&metadata, message), "read JetStream metadata")
        defer { jsMsgMetaData_Destroy(metadata) }
        guard let metadata, let reply = natsMsg_GetReply(message) else {
            throw NATSError(code: .protocolError, detail: "JetStream message without metadata")
        }
        subject = natsMsg_GetSubject(message).map { String(cString: $0) } ?? ""
        payload = NATSMessage.payload(of: message)
        headers = NATSMessage.headers(of: message)
        deliveryCount = Int(metadata.pointee.NumDelivered)
        streamSequence = metadata.pointee.Sequence.Stream
        receivedAt = DeadlineTimer.now
        storedAt = metadata.pointee.Timestamp
        ackSubject = String(cString: reply)
        self.connection = connection
    }
}
