import CNats
import Foundation

/// JetStream on one connection: streams, publish with a stored-acknowledgement, and durable consumers.
public struct JetStream: Sendable {
    let connection: NATSConnection

    /// Creates the stream, or updates it when it exists with another configuration. Safe to call from
    /// several replicas at once.
    public func ensureStream(name: String, subjects: [String], maxAge: Duration? = nil) async throws {
        try Subject.validateName(name, kind: "stream name")
        guard !subjects.isEmpty else { throw NATSError(code: .invalidArgument, detail: "stream '\(name)' has no subjects") }
        for subject in subjects { try Subject.validate(subject, wildcards: true) }
        let handle = connection.handle
        try await connection.runBlocking {
            var config = jsStreamConfig()
            try check(jsStreamConfig_Init(&config), "init stream config")
            let subjectCopies = subjects.map { strdup($0) }
            defer { subjectCopies.forEach { free($0) } }
            var subjectList = subjectCopies.map { UnsafePointer($0) }
            try name.withCString { namePointer in
                try subjectList.withUnsafeMutableBufferPointer { list in
                    config.Name = namePointer
                    config.Subjects = list.baseAddress
                    config.SubjectsLen = Int32(list.count)
                    config.Storage = js_FileStorage
                    config.Retention = js_LimitsPolicy
                    if let maxAge { config.MaxAge = maxAge.nanoseconds }
                    var info: UnsafeMutablePointer<jsStreamInfo>?
                    var errorCode = jsErrCode(0)
                    var status = js_AddStream(&info, handle.jetStream, &config, nil, &errorCode)
                    if status != NATS_OK, errorCode == JSStreamNameExistErr {
                        errorCode = jsErrCode(0)
                        status = js_UpdateStream(&info, handle.jetStream, &config, nil, &errorCode)
                    }
                    if let info { jsStreamInfo_Destroy(info) }
                    try checkJS(status, errorCode, "ensure stream '\(name)'")
                }
            }
        }
    }

    /// Deletes a stream and all its messages; a stream that does not exist is not an error.
    public func deleteStream(name: String) async throws {
        try Subject.validateName(name, kind: "stream name")
        let handle = connection.handle
        try await connection.runBlocking {
            var errorCode = jsErrCode(0)
            let status = js_DeleteStream(handle.jetStream, name, nil, &errorCode)
            guard errorCode != JSStreamNotFoundErr, status != NATS_NOT_FOUND else { return }
            try checkJS(status, errorCode, "delete stream '\(name)'")
        }
    }

    /// Publishes to a stream and returns the stream sequence once the server stored the message.
    ///
    /// With `messageID` (header `Nats-Msg-Id`) the server drops duplicates within the stream's duplicate
    /// window and returns the first copy's sequence. Throws ``NATSError/noResponders`` when no stream
    /// captures `subject`.
    public func publish(_ subject: String, _ payload: [UInt8], messageID: String? = nil,
                        headers: [String: String] = [:], timeout: Duration = .seconds(5)) async throws -> UInt64 {
        var headers = headers
        if let messageID { headers["Nats-Msg-Id"] = messageID }
        let reply: NATSMessage
        do {
            // The acknowledgement is an ordinary reply, so it rides the shared inbox: no thread waits for it.
            reply = try await connection.request(subject, payload, headers: headers, timeout: timeout)
        } catch let error as NATSError where error == .noResponders {
            throw NATSError(code: .noResponders, detail: "no JetStream stream captures '\(subject)'")
        }
        let ack: PublishAcknowledgement
        do {
            ack = try JSONDecoder().decode(PublishAcknowledgement.self, from: Data(reply.payload))
        } catch {
            throw NATSError(code: .protocolError, detail: "unreadable JetStream publish acknowledgement: \(error)")
        }
        if let failure = ack.error {
            throw NATSError.jetStream(failure.errorCode, detail: failure.description ?? "publish to '\(subject)' refused")
        }
        guard let sequence = ack.seq else {
            throw NATSError(code: .protocolError, detail: "JetStream publish acknowledgement without a sequence")
        }
        return sequence
    }

    /// Consumes a stream through a durable pull consumer shared by every replica using the same `durable`
    /// name: each message goes to one of them, must be acknowledged, and comes again after `ackWait`
    /// otherwise (at most `maxDeliver` times; -1 for no limit).
    ///
    /// The consumer is created (or updated) on a thread owned by the returned sequence; a setup failure
    /// (say, the stream does not exist) is thrown by the first `next()`.
    public func consume(stream: String, durable: String, filterSubject: String?, ackWait: Duration = .seconds(30),
                        maxDeliver: Int = -1) throws -> JetStreamConsumer {
        try Subject.validateName(stream, kind: "stream name")
        try Subject.validateName(durable, kind: "durable consumer name")
        if let filterSubject { try Subject.validate(filterSubject, wildcards: true) }
        guard ackWait > .zero else { throw NATSError(code: .invalidArgument, detail: "ackWait must be positive") }
        let worker = ConsumerWorker(connection: connection, stream: stream, durable: durable, filterSubject: filterSubject,
                                    ackWait: ackWait, maxDeliver: maxDeliver)
        worker.start()
        return JetStreamConsumer(worker: worker)
    }
}

/// The server's answer to a JetStream publish.
private struct PublishAcknowledgement: Decodable {
    struct Failure: Decodable {
        var code: Int
        var errorCode: Int?
        var description: String?

        enum CodingKeys: String, CodingKey {
            case code, description
            case errorCode = "err_code"
        }
    }

    var stream: String?
    var seq: UInt64?
    var duplicate: Bool?
    var error: Failure?
}
