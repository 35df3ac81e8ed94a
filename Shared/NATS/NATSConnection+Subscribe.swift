import CNats

extension NATSConnection {
    /// Subscribes to `subject` (wildcards allowed); with `queue`, the members of the group share the messages.
    public func subscribe(_ subject: String, queue: String? = nil) throws -> NATSSubscription {
        let onMessage: natsMsgHandler = { _, _, message, closure in
            let received = NATSMessage(copying: message!)
            natsMsg_Destroy(message)
            Unmanaged<MessageChannel<NATSMessage>>.fromOpaque(closure!).takeUnretainedValue().send(received)
        }
        let subscription: NATSSubscription = try makeSubscription(subject: subject, queue: queue) { closure in
            try coreSubscribe(subject, queue: queue, onMessage, closure)
        }
        logger.debug("NATS subscribed", ["nats.subject": subject, "nats.queue": queue ?? ""])
        return subscription
    }

    /// Subscribes to `subject` and hands each message to `onMessage` on cnats's delivery thread, in
    /// order; with `queue`, the members of the group share the messages.
    ///
    /// For a caller that starts work at once (a `Task.immediate`) rather than iterating a sequence,
    /// which would wake one more thread per message. `onMessage` may block briefly (to bound the work
    /// it starts): messages then wait in cnats, up to its pending limits.
    public func subscribe(_ subject: String, queue: String? = nil,
                          onMessage: @escaping @Sendable (NATSMessage) -> Void) throws -> CallbackSubscription {
        let deliver: natsMsgHandler = { _, _, message, closure in
            let received = NATSMessage(copying: message!)
            natsMsg_Destroy(message)
            Unmanaged<CallbackSubscription.Receiver>.fromOpaque(closure!).takeUnretainedValue().onMessage(received)
        }
        let receiver = CallbackSubscription.Receiver(onMessage: onMessage)
        let handle = try makeHandle(subject: subject, receiver: receiver) { closure in
            try coreSubscribe(subject, queue: queue, deliver, closure)
        }
        logger.debug("NATS subscribed", ["nats.subject": subject, "nats.queue": queue ?? ""])
        return CallbackSubscription(subject: subject, connection: self, handle: handle, receiver: receiver)
    }

    /// Creates a subscription whose cnats callback sends to a `MessageChannel<Message>`, the callback's
    /// closure pointer: `create` makes the cnats subscription with that pointer.
    func makeSubscription<Message: Sendable>(subject: String, queue: String?,
                                             create: (UnsafeMutableRawPointer) throws -> OpaquePointer) throws -> Subscription<Message> {
        let channel = MessageChannel<Message>(capacity: configuration.subscriptionBufferSize)
        let handle = try makeHandle(subject: subject, receiver: channel, create: create)
        return Subscription(subject: subject, queue: queue, connection: self, handle: handle, channel: channel)
    }

    /// Makes the cnats subscription whose callbacks get `receiver` as their closure pointer (`create`
    /// subscribes with it), with the connection's pending limits. The subscription holds `receiver`
    /// (+1) until its completion callback, after the last message, finishes and releases it.
    private func makeHandle(subject: String, receiver: some SubscriptionReceiver,
                            create: (UnsafeMutableRawPointer) throws -> OpaquePointer) throws -> SubscriptionHandle {
        let pointer = Unmanaged.passRetained(receiver as AnyObject).toOpaque()
        let subscription: OpaquePointer
        do {
            subscription = try create(pointer)
        } catch {
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
            throw error
        }
        let handle = SubscriptionHandle(subscription)
        // A C callback cannot name the receiver's type: it reaches it as an `AnyObject` that can finish.
        let completion = natsSubscription_SetOnCompleteCB(subscription, { closure in
            (Unmanaged<AnyObject>.fromOpaque(closure!).takeRetainedValue() as? any SubscriptionReceiver)?.finish(failure: nil)
        }, pointer)
        // NATS_INVALID_SUBSCRIPTION: closed already (connection closing); the receiver then stays alive, a few bytes.
        try check(completion, "set completion callback for '\(subject)'")
        try check(natsSubscription_SetPendingLimits(subscription, Int32(clamping: configuration.pendingMessageLimit),
                                                    Int32(clamping: configuration.pendingByteLimit)),
                  "set pending limits for '\(subject)'")
        return handle
    }

    /// A core NATS subscription to `subject` (wildcards allowed), in `queue` if given, calling `onMessage`
    /// with `closure`.
    private func coreSubscribe(_ subject: String, queue: String?, _ onMessage: natsMsgHandler,
                               _ closure: UnsafeMutableRawPointer) throws -> OpaquePointer {
        try Subject.validate(subject, wildcards: true)
        if let queue { try Subject.validateName(queue, kind: "queue group", dots: true) }
        var subscription: OpaquePointer?
        let status = if let queue {
            natsConnection_QueueSubscribe(&subscription, handle.connection, subject, queue, onMessage, closure)
        } else {
            natsConnection_Subscribe(&subscription, handle.connection, subject, onMessage, closure)
        }
        guard status == NATS_OK, let subscription else { throw NATSError(status: status, operation: "subscribe to '\(subject)'") }
        return subscription
    }
}
