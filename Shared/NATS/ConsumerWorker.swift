import CNats
import Foundation
import Synchronization

/// Creates or binds a durable pull consumer and fetches from it on its own thread, feeding a channel.
final class ConsumerWorker: Sendable {
    /// Messages fetched per request unless the consumer asks for another number; also the channel size, so
    /// few messages wait un-acked in memory.
    static let defaultBatchSize = 16
    /// How long one fetch waits for messages before asking again (and checking for `stop`).
    static let fetchWait: Int64 = 1_000

    let connection: NATSConnection
    let stream: String
    let durable: String
    let filterSubject: String?
    let ackWait: Duration
    let maxDeliver: Int
    /// Messages fetched per request (the channel holds as many).
    let batchSize: Int32
    /// Whether binding creates (or updates) the consumer first; false: it binds one someone else made.
    let createsConsumer: Bool
    /// What the consumer lets the thread fetch, for one that fetches only what it has room for; nil: a batch whenever
    /// the channel has room.
    let allowance: FetchAllowance?
    let channel: MessageChannel<JetStreamMessage>
    private let stopped = Atomic<Bool>(false)
    /// The bound pull subscription, so that `stop` can remove interest at once (waking a pending fetch).
    private let subscription = Mutex<SubscriptionHandle?>(nil)

    init(connection: NATSConnection, stream: String, durable: String, filterSubject: String?, ackWait: Duration,
         maxDeliver: Int, batchSize: Int = ConsumerWorker.defaultBatchSize,
         createsConsumer: Bool = true, onDemand: Bool = false) {
        self.connection = connection
        self.stream = stream
        self.durable = durable
        self.filterSubject = filterSubject
        self.ackWait = ackWait
        self.maxDeliver = maxDeliver
        self.batchSize = Int32(max(1, batchSize))
        self.createsConsumer = createsConsumer
        allowance = onDemand ? FetchAllowance() : nil
        channel = MessageChannel(capacity: max(1, batchSize))
    }

    /// Starts the fetch thread, which keeps this worker alive until it ends.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "nats.consumer.\(durable)"
        thread.start()
    }

    /// Asks the fetch thread to end (within one fetch wait) and ends iteration.
    func stop() {
        stopped.store(true, ordering: .releasing)
        channel.finish()
        allowance?.wake()
        // A pull request still open on the server would otherwise receive (and strand until ackWait) new messages.
        subscription.withLock { handle in
            do {
                try handle?.unsubscribe()
            } catch {
                connection.logger.warning("JetStream consumer unsubscribe failed", metadata.merging(["nats.error": "\(error)"]) { $1 })
            }
        }
    }

    /// Gives fetched messages that nobody will process back to the server for immediate redelivery.
    private func release(_ messages: ArraySlice<JetStreamMessage>) {
        for message in messages {
            // Best effort: if the NAK is lost, the server redelivers after ackWait anyway.
            try? connection.publish(message.ackSubject, reply: nil, Array("-NAK".utf8), headers: [:])
        }
    }

    private var metadata: [String: String] { ["nats.stream": stream, "nats.consumer": durable] }

    private func run() {
        var handle: SubscriptionHandle
        do {
            handle = try attach()
        } catch {
            connection.logger.error("JetStream consumer setup failed", metadata.merging(["nats.error": "\(error)"]) { $1 })
            channel.finish(failure: error as? NATSError ?? NATSError(code: .protocolError, detail: "\(error)"))
            return
        }
        connection.logger.debug("JetStream consumer started", metadata)
        var failures = 0
        while !stopped.load(ordering: .acquiring) {
            var wanted = batchSize
            if let allowance {
                wanted = Int32(allowance.take(upTo: Int(batchSize), waitingAtMost: Int(Self.fetchWait)))
                if wanted == 0 { continue }
            }
            var list = natsMsgList()
            var errorCode = jsErrCode(0)
            let status = natsSubscription_Fetch(&list, handle.subscription, wanted, Self.fetchWait, &errorCode)
            allowance?.giveBack(Int(wanted) - (status == NATS_OK ? Int(list.Count) : 0))
            var messages: [JetStreamMessage] = []
            if status == NATS_OK {
                messages.reserveCapacity(Int(list.Count))
                for index in 0..<Int(list.Count) {
                    guard let message = list.Msgs[index] else { continue }
                    do {
                        messages.append(try JetStreamMessage(copying: message, connection: connection))
                    } catch {
                        connection.logger.warning("JetStream message skipped", metadata.merging(["nats.error": "\(error)"]) { $1 })
                    }
                }
            }
            natsMsgList_Destroy(&list)
            if stopped.load(ordering: .acquiring) {
                release(messages[...])
                return
            }
            switch status {
            case NATS_OK:
                failures = 0
                for (index, message) in messages.enumerated() where !channel.send(message) {
                    release(messages[index...])
                    return
                }
            case NATS_TIMEOUT:
                failures = 0
            case NATS_CONNECTION_CLOSED:
                // A deliberate close (drainAndClose); iteration ends like after `stop`.
                connection.logger.info("JetStream consumer ends: connection closed", metadata)
                channel.finish()
                return
            default:
                // Disconnected or a server hiccup: wait a little longer each time and fetch again.
                failures += 1
                if failures == 1 || failures % 50 == 0 {
                    let error = NATSError(status: status, operation: "fetch", jetStreamError: errorCode)
                    connection.logger.warning("JetStream fetch failed, retrying", metadata.merging(["nats.error": "\(error)"]) { $1 })
                }
                Thread.sleep(forTimeInterval: min(2.0, 0.05 * Double(failures)))
                // The consumer may have been deleted (or its stream re-created): create and bind it again.
                if failures % 10 == 0, connection.isConnected, let fresh = try? attach() {
                    handle = fresh
                }
            }
        }
    }

    /// Binds (see ``bind()``) and publishes the subscription for `stop`, which may already have been called.
    private func attach() throws -> SubscriptionHandle {
        let handle = SubscriptionHandle(try bind())
        let previous = subscription.withLock { slot in
            defer { slot = handle }
            return slot
        }
        try? previous?.unsubscribe()  // Best effort: the old binding is the one that stopped working.
        if stopped.load(ordering: .acquiring) { try handle.unsubscribe() }
        return handle
    }

    /// Creates (or updates) the durable consumer unless someone else makes it, then binds a pull subscription to it.
    ///
    /// Creating it here rather than letting `js_PullSubscribe` do it matters: cnats deletes a consumer
    /// that its own subscribe call created when the subscription closes, which would lose the durable's
    /// position for every replica.
    private func bind() throws -> OpaquePointer {
        let jetStream = connection.handle.jetStream
        if createsConsumer {
            try Self.createOrUpdate(jetStream, stream: stream, durable: durable, filterSubject: filterSubject, ackWait: ackWait,
                                    maxDeliver: maxDeliver, startTime: nil, description: nil)
        }
        return try durable.withCString { durablePointer in
            try withOptionalCString(filterSubject) { filterPointer in
                var options = jsSubOptions()
                try check(jsSubOptions_Init(&options), "init subscribe options")
                var subscription: OpaquePointer?
                var errorCode = jsErrCode(0)
                let status = stream.withCString { streamPointer in
                    options.Stream = streamPointer
                    options.Consumer = durablePointer
                    options.ManualAck = true
                    return js_PullSubscribe(&subscription, jetStream, filterPointer, durablePointer, nil, &options, &errorCode)
                }
                try checkJS(status, errorCode, "bind to consumer '\(durable)' on '\(stream)'")
                guard let subscription else {
                    throw NATSError(code: .protocolError, detail: "pull subscribe returned no subscription")
                }
                return subscription
            }
        }
    }

    /// Creates the durable pull consumer `durable` on `stream`, or updates it to this configuration when it exists with
    /// another (another replica, an older release); blocks on the server's answer.
    static func createOrUpdate(_ jetStream: OpaquePointer?, stream: String, durable: String, filterSubject: String?, ackWait: Duration,
                               maxDeliver: Int, startTime: Date?, description: String?, replicas: Int? = nil) throws {
        var config = jsConsumerConfig()
        try check(jsConsumerConfig_Init(&config), "init consumer config")
        try durable.withCString { durablePointer in
            try withOptionalCString(filterSubject) { filterPointer in
                try withOptionalCString(description) { descriptionPointer in
                    config.Durable = durablePointer
                    config.AckPolicy = js_AckExplicit
                    config.DeliverPolicy = js_DeliverAll
                    if let startTime {
                        config.DeliverPolicy = js_DeliverByStartTime
                        // Whole seconds: cnats 3.4 writes a fraction without its leading zeros (see JetStream+Follow).
                        config.OptStartTime = Int64(max(1, startTime.timeIntervalSince1970.rounded(.down))) * 1_000_000_000
                    }
                    config.AckWait = ackWait.nanoseconds
                    config.MaxDeliver = Int64(maxDeliver)
                    config.FilterSubject = filterPointer
                    config.Description = descriptionPointer
                    if let replicas { config.Replicas = Int64(replicas) }
                    var info: UnsafeMutablePointer<jsConsumerInfo>?
                    var errorCode = jsErrCode(0)
                    var status = js_AddConsumer(&info, jetStream, stream, &config, nil, &errorCode)
                    // 10013 / 10105 / 10148: it exists with another configuration (another replica, an older release).
                    if status != NATS_OK, [10013, 10105, 10148].contains(errorCode.rawValue) {
                        if let info { jsConsumerInfo_Destroy(info) }
                        info = nil
                        errorCode = jsErrCode(0)
                        status = js_UpdateConsumer(&info, jetStream, stream, &config, nil, &errorCode)
                    }
                    if let info { jsConsumerInfo_Destroy(info) }
                    try checkJS(status, errorCode, "create consumer '\(durable)' on '\(stream)'")
                }
            }
        }
    }
}

/// Calls `body` with a C string for `string`, or nil.
private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) throws -> R) rethrows -> R {
    guard let string else { return try body(nil) }
    return try string.withCString { try body($0) }
}
