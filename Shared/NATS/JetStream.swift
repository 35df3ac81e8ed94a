import CNats
import Collections
import Foundation
import JSON

/// JetStream on one connection: streams, publish with a stored-acknowledgement, and durable consumers.
public struct JetStream: Sendable {
    let connection: NATSConnection

    /// What ``ensureStream(name:subjects:maxAge:replicas:)`` found and did.
    public struct StreamOutcome: Sendable, Equatable {
        /// True when this call created the stream.
        public var created = false
        /// How the existing stream's settings differ from those asked for, left as the operator set them
        /// (for example `"max_age 86400 s (asked 604800 s)"`, `"subjects events.b.> missing"`).
        public var differences: [String] = []

        /// An outcome; the defaults say "found, nothing to report".
        public init(created: Bool = false, differences: [String] = []) {
            self.created = created
            self.differences = differences
        }
    }

    /// Creates the stream with `maxAge` and `replicas` when it is missing. An existing stream keeps its
    /// settings, subjects included: it is never changed behind an operator's back (the outcome lists what
    /// differs). Whoever may edit a stream's subjects can point it at other clients' replies, so this never
    /// does (SPEC section 9). Safe to call from several replicas at once.
    @discardableResult
    public func ensureStream(name: String, subjects: [String], maxAge: Duration? = nil, replicas: Int = 1) async throws -> StreamOutcome {
        try Subject.validateName(name, kind: "stream name")
        guard !subjects.isEmpty else { throw NATSError(code: .invalidArgument, detail: "stream '\(name)' has no subjects") }
        for subject in subjects { try Subject.validate(subject, wildcards: true) }
        guard (1...5).contains(replicas) else { throw NATSError(code: .invalidArgument, detail: "stream replicas \(replicas) is not in 1...5") }
        let handle = connection.handle
        return try await BlockingCall.run {
            // Looked up first: an existing stream is never re-created with settings that may not even fit the cluster.
            if let outcome = try Self.reconcileStream(handle, name: name, subjects: subjects, maxAge: maxAge, replicas: replicas) {
                return outcome
            }
            if try Self.addStream(handle, name: name, subjects: subjects, maxAge: maxAge, replicas: replicas) {
                return StreamOutcome(created: true)
            }
            // Another replica created it meanwhile.
            guard let outcome = try Self.reconcileStream(handle, name: name, subjects: subjects, maxAge: maxAge, replicas: replicas) else {
                throw NATSError(code: .protocolError, detail: "stream '\(name)' exists and cannot be read")
            }
            return outcome
        }
    }

    /// Adds the stream, with `settings` made to its configuration beyond these (`what` names it in an error); false
    /// when one of that name exists already.
    static func addStream(_ handle: ConnectionHandle, name: String, subjects: [String], maxAge: Duration?, replicas: Int,
                          what: String? = nil, settings: (inout jsStreamConfig) -> Void = { _ in }) throws -> Bool {
        var config = jsStreamConfig()
        try check(jsStreamConfig_Init(&config), "init stream config")
        return try withCStrings(subjects) { list in
            try name.withCString { namePointer in
                config.Name = namePointer
                config.Subjects = list.baseAddress
                config.SubjectsLen = Int32(list.count)
                config.Storage = js_FileStorage
                config.Retention = js_LimitsPolicy
                config.Replicas = Int64(replicas)
                if let maxAge { config.MaxAge = maxAge.nanoseconds }
                settings(&config)
                var info: UnsafeMutablePointer<jsStreamInfo>?
                var errorCode = jsErrCode(0)
                let status = js_AddStream(&info, handle.jetStream, &config, nil, &errorCode)
                if let info { jsStreamInfo_Destroy(info) }
                if status != NATS_OK, errorCode == JSStreamNameExistErr { return false }
                try checkJS(status, errorCode, "create \(what ?? "stream '\(name)'")")
                return true
            }
        }
    }

    /// Compares an existing stream with the settings asked for (it changes nothing); nil when
    /// there is no such stream.
    private static func reconcileStream(_ handle: ConnectionHandle, name: String, subjects: [String], maxAge: Duration?,
                                        replicas: Int) throws -> StreamOutcome? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var errorCode = jsErrCode(0)
        let status = js_GetStreamInfo(&info, handle.jetStream, name, nil, &errorCode)
        defer { if let info { jsStreamInfo_Destroy(info) } }
        if errorCode == JSStreamNotFoundErr || status == NATS_NOT_FOUND { return nil }
        try checkJS(status, errorCode, "read stream '\(name)'")
        guard let config = info?.pointee.Config else {
            throw NATSError(code: .protocolError, detail: "stream '\(name)' has no configuration")
        }
        var outcome = StreamOutcome()
        let existingAge = config.pointee.MaxAge
        if let maxAge, existingAge != maxAge.nanoseconds {
            let have = existingAge == 0 ? "unlimited" : "\(existingAge / 1_000_000_000) s"
            outcome.differences.append("max_age \(have) (asked \(maxAge.nanoseconds / 1_000_000_000) s)")
        }
        if config.pointee.Replicas != Int64(replicas) {
            outcome.differences.append("replicas \(config.pointee.Replicas) (asked \(replicas))")
        }
        let existing = (0..<Int(config.pointee.SubjectsLen)).compactMap { index in
            config.pointee.Subjects?[index].map { String(cString: $0) }
        }
        let missing = subjects.filter { !existing.contains($0) }
        if !missing.isEmpty {
            outcome.differences.append("subjects \(missing.joined(separator: ",")) missing")
        }
        return outcome
    }

    /// Runs `body` with `strings` as a C array of C strings, valid for the call.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafeMutableBufferPointer<UnsafePointer<CChar>?>) throws -> T) rethrows -> T {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var list = copies.map { UnsafePointer($0) }
        return try list.withUnsafeMutableBufferPointer { try body($0) }
    }

    /// Deletes a stream and all its messages; a stream that does not exist is not an error.
    public func deleteStream(name: String) async throws {
        try Subject.validateName(name, kind: "stream name")
        let handle = connection.handle
        try await BlockingCall.run {
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
        // The acknowledgement is an ordinary reply, so it rides the shared inbox: no thread waits for it.
        let message = OutgoingMessage(subject, payload, messageID: messageID, headers: headers)
        return try await publishAll([message], timeout: timeout)[0].get()
    }

    /// One message of ``publishAll(_:timeout:)``.
    public struct OutgoingMessage: Sendable {
        var request: NATSConnection.Request

        /// A message to `subject`; with `messageID` (header `Nats-Msg-Id`) the server drops duplicates.
        public init(_ subject: String, _ payload: [UInt8], messageID: String? = nil, headers: [String: String] = [:]) {
            var headers = headers
            if let messageID { headers["Nats-Msg-Id"] = messageID }
            request = NATSConnection.Request(subject, payload, headers: headers)
        }
    }

    /// Publishes `messages` in their order without waiting between them, then waits for all their
    /// acknowledgements together. Returns each one's stream sequence or failure (those of
    /// ``publish(_:_:messageID:headers:timeout:)``), in the same order. The server stores them in the
    /// order sent; a failed one may be followed by stored ones.
    public func publishAll(_ messages: [OutgoingMessage], timeout: Duration = .seconds(5)) async -> [Result<UInt64, any Error>] {
        let replies = await connection.requestAll(messages.map(\.request), timeout: timeout)
        return zip(messages, replies).map { Self.sequence(of: $1, subject: $0.request.subject) }
    }

    /// The stream sequence in a publish acknowledgement, or why there is none.
    private static func sequence(of answer: Result<NATSMessage, any Error>, subject: String) -> Result<UInt64, any Error> {
        Result {
            let reply: NATSMessage
            do {
                reply = try answer.get()
            } catch let error as NATSError where error == .noResponders {
                throw NATSError(code: .noResponders, detail: "no JetStream stream captures '\(subject)'")
            }
            let ack: PublishAcknowledgement
            do {
                ack = try MessageCoding.decode(PublishAcknowledgement.self, from: reply.payload)
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
    }

    /// Consumes a stream through a durable pull consumer shared by every replica using the same `durable`
    /// name: each message goes to one of them, must be acknowledged, and comes again after `ackWait`
    /// otherwise (at most `maxDeliver` times; -1 for no limit).
    ///
    /// The consumer is created (or updated) on a thread owned by the returned sequence; a setup failure
    /// (say, the stream does not exist) is thrown by the first `next()`. `batchSize` messages are fetched per
    /// request (16 unless said: a consumer that handles them in batches asks for more).
    ///
    /// Without `createsConsumer` it is only bound, as someone else made it (an identity that
    /// may not create consumers). One made `onDemand` fetches only as many messages as its reader allowed
    /// (``JetStreamConsumer/allow(_:)``), none before.
    public func consume(stream: String, durable: String, filterSubject: String?, ackWait: Duration = .seconds(30),
                        maxDeliver: Int = -1, batchSize: Int = 16,
                        createsConsumer: Bool = true, onDemand: Bool = false) throws -> JetStreamConsumer {
        try Subject.validateName(stream, kind: "stream name")
        try Subject.validateName(durable, kind: "durable consumer name")
        if let filterSubject { try Subject.validate(filterSubject, wildcards: true) }
        guard ackWait > .zero else { throw NATSError(code: .invalidArgument, detail: "ackWait must be positive") }
        let worker = ConsumerWorker(connection: connection, stream: stream, durable: durable, filterSubject: filterSubject,
                                    ackWait: ackWait, maxDeliver: maxDeliver, batchSize: min(max(1, batchSize), 1_024),
                                    createsConsumer: createsConsumer, onDemand: onDemand)
        worker.start()
        return JetStreamConsumer(worker: worker)
    }
}

extension JetStream {
    /// What the server says of a durable consumer: its backlog and how it was made.
    public struct ConsumerState: Sendable, Equatable {
        /// Messages of its filter not yet delivered.
        public var undelivered: UInt64
        /// Messages delivered and not yet acknowledged.
        public var unacknowledged: UInt64
        /// How it was made: where and what it delivers.
        public var configuration: ConsumerConfiguration
    }

    /// What a consumer's configuration says of where and how it delivers, as far as one who reads a consumer someone
    /// else made must trust it (``ConsumerState/configuration``).
    public struct ConsumerConfiguration: Sendable, Equatable {
        /// Where a push consumer delivers; nil for a pull consumer.
        public var deliverSubject: String?
        /// The subjects it delivers ("" for all of the stream's).
        public var filterSubject = ""
        /// Whether every message is acknowledged one by one.
        public var acknowledgesEach = true
        public var ackWait = Duration.seconds(30)
        /// Deliveries of a message at most; -1 or 0 for no limit.
        public var maxDeliver: Int64 = -1
        /// Where it started: the first stored message (nil), or the first stored from this time on.
        public var startTime: Date?
        /// Whether it started anywhere but the first stored message or a time (new, last, a sequence...).
        public var startsElsewhere = false
        /// Whether it delivers headers without bodies.
        public var headersOnly = false
        /// Whether it delivers as fast as asked (not at the pace the messages were stored).
        public var replaysInstantly = true
        /// Whether redeliveries wait by a back-off list of its own.
        public var hasBackOff = false
        /// After how long without readers the server deletes it; zero for never.
        public var inactiveThreshold = Duration.zero
        /// Whether its state is kept in memory only.
        public var memoryStorage = false
        /// Messages delivered and not acknowledged at most; 0 or -1 for the server's default.
        public var maxAckPending: Int64 = 0
        /// A pull request's largest batch, longest expiry and most bytes; 0 for no limit.
        public var maxRequestBatch: Int64 = 0
        public var maxRequestExpires = Duration.zero
        public var maxRequestMaxBytes: Int64 = 0

        /// A pull consumer of every subject, acknowledged one by one from the first stored message, the rest at the
        /// server's defaults (the tests change what they look at).
        public init() {}

        init(_ config: jsConsumerConfig) {
            deliverSubject = config.DeliverSubject.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            filterSubject = config.FilterSubject.map { String(cString: $0) } ?? ""
            acknowledgesEach = config.AckPolicy == js_AckExplicit
            ackWait = .nanoseconds(config.AckWait)
            maxDeliver = config.MaxDeliver
            startTime = config.DeliverPolicy == js_DeliverByStartTime
                ? Date(timeIntervalSince1970: Double(config.OptStartTime) / 1e9) : nil
            startsElsewhere = config.DeliverPolicy != js_DeliverAll && config.DeliverPolicy != js_DeliverByStartTime
            headersOnly = config.HeadersOnly
            replaysInstantly = config.ReplayPolicy == js_ReplayInstant
            hasBackOff = config.BackOffLen > 0
            inactiveThreshold = .nanoseconds(config.InactiveThreshold)
            memoryStorage = config.MemoryStorage
            maxAckPending = config.MaxAckPending
            maxRequestBatch = config.MaxRequestBatch
            maxRequestExpires = .nanoseconds(config.MaxRequestExpires)
            maxRequestMaxBytes = config.MaxRequestMaxBytes
        }
    }

    /// The state of the durable consumer `durable` on `stream`; nil when there is no such consumer.
    public func consumerState(stream: String, durable: String) async throws -> ConsumerState? {
        try Subject.validateName(stream, kind: "stream name")
        try Subject.validateName(durable, kind: "durable consumer name")
        let handle = connection.handle
        return try await BlockingCall.run {
            var info: UnsafeMutablePointer<jsConsumerInfo>?
            var errorCode = jsErrCode(0)
            let status = js_GetConsumerInfo(&info, handle.jetStream, stream, durable, nil, &errorCode)
            defer { if let info { jsConsumerInfo_Destroy(info) } }
            if errorCode == JSConsumerNotFoundErr || status == NATS_NOT_FOUND { return nil }
            try checkJS(status, errorCode, "read consumer '\(durable)' on '\(stream)'")
            guard let info, let config = info.pointee.Config?.pointee else { return nil }
            return ConsumerState(undelivered: info.pointee.NumPending, unacknowledged: UInt64(max(0, info.pointee.NumAckPending)),
                                 configuration: ConsumerConfiguration(config))
        }
    }

    /// Creates the durable pull consumer `durable` on `stream` (acknowledged one by one, starting with the messages
    /// stored from `startTime`, or every stored one; kept in `replicas` copies, or as many as the stream), or sets an
    /// existing one to this configuration: for a consumer another identity reads.
    public func ensureConsumer(stream: String, durable: String, filterSubject: String?, ackWait: Duration = .seconds(30),
                               startTime: Date? = nil, description: String? = nil, replicas: Int? = nil) async throws {
        try Subject.validateName(stream, kind: "stream name")
        try Subject.validateName(durable, kind: "durable consumer name")
        if let filterSubject { try Subject.validate(filterSubject, wildcards: true) }
        let handle = connection.handle
        try await BlockingCall.run {
            try ConsumerWorker.createOrUpdate(handle.jetStream, stream: stream, durable: durable, filterSubject: filterSubject,
                                              ackWait: ackWait, maxDeliver: -1, startTime: startTime,
                                              description: description, replicas: replicas)
        }
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
