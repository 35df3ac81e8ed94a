import CNats

extension NATSMessage {
    /// Copies subject, reply, payload and headers out of a cnats message (which the caller still owns).
    init(copying message: OpaquePointer) {
        let subject = natsMsg_GetSubject(message).map { String(cString: $0) } ?? ""
        let reply = natsMsg_GetReply(message).flatMap { $0.pointee == 0 ? nil : String(cString: $0) }
        self.init(subject: subject, replyTo: reply, payload: Self.payload(of: message), headers: Self.headers(of: message))
    }

    /// The payload bytes of a cnats message.
    static func payload(of message: OpaquePointer) -> [UInt8] {
        let length = Int(natsMsg_GetDataLength(message))
        guard length > 0, let data = natsMsg_GetData(message) else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// The headers of a cnats message; NATS_NOT_FOUND (no headers) gives an empty dictionary.
    static func headers(of message: OpaquePointer) -> [String: String] {
        var keys: UnsafeMutablePointer<UnsafePointer<CChar>?>?
        var count: Int32 = 0
        guard natsMsgHeader_Keys(message, &keys, &count) == NATS_OK, let keys else { return [:] }
        // cnats allocates the key array (not the strings) for the caller to free.
        defer { free(keys) }
        var headers: [String: String] = [:]
        headers.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            guard let key = keys[index] else { continue }
            var value: UnsafePointer<CChar>?
            if natsMsgHeader_Get(message, key, &value) == NATS_OK, let value {
                headers[String(cString: key)] = String(cString: value)
            }
        }
        return headers
    }
}
