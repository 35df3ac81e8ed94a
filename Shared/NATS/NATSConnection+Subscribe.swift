import CNats

extension NATSConnection {
    /// Subscribes to `subject` (wildcards allowed); with `queue`, the members of the group share the messages.
    public func subscribe(_ subject: String, queue: String? = nil) throws -> NATSSubscription {
        try Subject.validate(subject, wildcards: true)
        if let queue { try Subject.validateName(queue, kind: "queue group", dots: true) }
        let channel = MessageChannel<NATSMessage>(capacity: configuration.subscriptionBufferSize)
        // One +1 reference for the subscription; its completion callback (after the last message) releases it.
        let pointer = Unmanaged.passRetained(channel).toOpaque()
        let onMessage: natsMsgHandler = { _, _, message, closure in
            let received = NATSMessage(copying: message!)
            natsMsg_Destroy(message)
            Unmanaged<MessageChannel<NATSMessage>>.fromOpaque(closure!).takeUnretainedValue().send(received)
        }
        var subscription: OpaquePointer?
        let status = if let queue {
            natsConnection_QueueSubscribe(&subscription, handle.connection, subject, queue, onMessage, pointer)
        } else {
            natsConnection_Subscribe(&subscription, handle.connection, subject, onMessage, pointer)
        }
        guard status == NATS_OK, let subscription else {
            Unmanaged<MessageChannel<NATSMessage>>.fromOpaque(pointer).release()
            throw NATSError(status: status, operation: "subscribe to '\(subject)'")
        }
        let subscriptionHandle = SubscriptionHandle(subscription)
        let completion = natsSubscription_SetOnCompleteCB(subscription, { closure in
            let channel = Unmanaged<MessageChannel<NATSMessage>>.fromOpaque(closure!).takeRetainedValue()
            channel.finish()
        }, pointer)
        // NATS_INVALID_SUBSCRIPTION: closed already (connection closing); the channel then stays alive, a few bytes.
        try check(completion, "set completion callback for '\(subject)'")
        try check(natsSubscription_SetPendingLimits(subscription, Int32(clamping: configuration.pendingMessageLimit),
                                                    Int32(clamping: configuration.pendingByteLimit)),
                  "set pending limits for '\(subject)'")
        logger.debug("NATS subscribed", ["nats.subject": subject, "nats.queue": queue ?? ""])
        return NATSSubscription(subject: subject, queue: queue, connection: self, handle: subscriptionHandle,
                                channel: channel)
    }
}
