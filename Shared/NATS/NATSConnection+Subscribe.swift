import CNats

extension NATSConnection {
    /// Subscribes to `subject` (wildcards allowed); with `queue`, the members of the group share the messages.
    public func subscribe(_ subject: String, queue: String? = nil) throws -> NATSSubscription {
        try Subject.validate(subject, wildcards: true)
        if let queue { try Subject.validateName(queue, kind: "queue group", dots: true) }
        let onMessage: natsMsgHandler = { _, _, message, closure in
            let received = NATSMessage(copying: message!)
            natsMsg_Destroy(message)
            Unmanaged<MessageChannel<NATSMessage>>.fromOpaque(closure!).takeUnretainedValue().send(received)
        }
        let subscription: NATSSubscription = try makeSubscription(subject: subject, queue: queue, onMessage: onMessage) { closure in
            var subscription: OpaquePointer?
            let status = if let queue {
                natsConnection_QueueSubscribe(&subscription, handle.connection, subject, queue, onMessage, closure)
            } else {
                natsConnection_Subscribe(&subscription, handle.connection, subject, onMessage, closure)
            }
            guard status == NATS_OK, let subscription else { throw NATSError(status: status, operation: "subscribe to '\(subject)'") }
            return subscription
        }
        logger.debug("NATS subscribed", ["nats.subject": subject, "nats.queue": queue ?? ""])
        return subscription
    }

    /// Creates a subscription whose cnats callback `onMessage` sends to a `MessageChannel<Message>`, the
    /// callback's closure pointer: `create` makes the cnats subscription with that callback and pointer.
    func makeSubscription<Message: Sendable>(subject: String, queue: String?, onMessage: natsMsgHandler,
                                             create: (UnsafeMutableRawPointer) throws -> OpaquePointer) throws -> Subscription<Message> {
        let channel = MessageChannel<Message>(capacity: configuration.subscriptionBufferSize)
        // One +1 reference for the subscription; its completion callback (after the last message) releases it.
        let pointer = Unmanaged.passRetained(channel).toOpaque()
        let subscription: OpaquePointer
        do {
            subscription = try create(pointer)
        } catch {
            Unmanaged<MessageChannel<Message>>.fromOpaque(pointer).release()
            throw error
        }
        let subscriptionHandle = SubscriptionHandle(subscription)
        // A C callback cannot name `Message`: it reaches the channel as an `AnyObject` that can finish.
        let completion = natsSubscription_SetOnCompleteCB(subscription, { closure in
            (Unmanaged<AnyObject>.fromOpaque(closure!).takeRetainedValue() as? any FinishableChannel)?.finish(failure: nil)
        }, pointer)
        // NATS_INVALID_SUBSCRIPTION: closed already (connection closing); the channel then stays alive, a few bytes.
        try check(completion, "set completion callback for '\(subject)'")
        try check(natsSubscription_SetPendingLimits(subscription, Int32(clamping: configuration.pendingMessageLimit),
                                                    Int32(clamping: configuration.pendingByteLimit)),
                  "set pending limits for '\(subject)'")
        return Subscription(subject: subject, queue: queue, connection: self, handle: subscriptionHandle, channel: channel)
    }
}

extension NATSConnection {
    /// Subscribes to `subject` and hands each message to `onMessage` on cnats's delivery thread, in
    /// order; with `queue`, the members of the group share the messages.
    ///
    /// For a caller that starts work at once (a `Task.immediate`) rather than iterating a sequence,
    /// which would wake one more thread per message. `onMessage` may block briefly (to bound the work
    /// it starts): messages then wait in cnats, up to its pending limits.
    public func subscribe(_ subject: String, queue: String? = nil,
                          onMessage: @escaping @Sendable (NATSMessage) -> Void) throws -> CallbackSubscription {
        try Subject.validate(subject, wildcards: true)
        if let queue { try Subject.validateName(queue, kind: "queue group", dots: true) }
        let receiver = CallbackSubscription.Receiver(onMessage: onMessage)
        // One +1 reference for the subscription; its completion callback (after the last message) releases it.
        let pointer = Unmanaged.passRetained(receiver).toOpaque()
        let deliver: natsMsgHandler = { _, _, message, closure in
            let received = NATSMessage(copying: message!)
            natsMsg_Destroy(message)
            Unmanaged<CallbackSubscription.Receiver>.fromOpaque(closure!).takeUnretainedValue().onMessage(received)
        }
        var created: OpaquePointer?
        let status = if let queue {
            natsConnection_QueueSubscribe(&created, handle.connection, subject, queue, deliver, pointer)
        } else {
            natsConnection_Subscribe(&created, handle.connection, subject, deliver, pointer)
        }
        guard status == NATS_OK, let created else {
            Unmanaged<CallbackSubscription.Receiver>.fromOpaque(pointer).release()
            throw NATSError(status: status, operation: "subscribe to '\(subject)'")
        }
        let subscription = SubscriptionHandle(created)
        // NATS_INVALID_SUBSCRIPTION: closed already (connection closing); the receiver then stays alive, a few bytes.
        try check(natsSubscription_SetOnCompleteCB(created, { closure in
            Unmanaged<CallbackSubscription.Receiver>.fromOpaque(closure!).takeRetainedValue().ended.open()
        }, pointer), "set completion callback for '\(subject)'")
        try check(natsSubscription_SetPendingLimits(created, Int32(clamping: configuration.pendingMessageLimit),
                                                    Int32(clamping: configuration.pendingByteLimit)),
                  "set pending limits for '\(subject)'")
        logger.debug("NATS subscribed", ["nats.subject": subject, "nats.queue": queue ?? ""])
        return CallbackSubscription(subject: subject, connection: self, handle: subscription, receiver: receiver)
    }
}
