import CNats

/// Owns one cnats subscription.
///
/// `@unchecked Sendable` is safe: cnats subscriptions lock internally and may be unsubscribed from any
/// thread; the pointer never changes and is destroyed only in `deinit`.
final class SubscriptionHandle: @unchecked Sendable {
    let subscription: OpaquePointer

    init(_ subscription: OpaquePointer) {
        self.subscription = subscription
    }

    /// Removes interest; a subscription that is already closed (or whose connection closed) is not an error.
    func unsubscribe() throws {
        guard natsSubscription_IsValid(subscription) else { return }
        let status = natsSubscription_Unsubscribe(subscription)
        guard status != NATS_INVALID_SUBSCRIPTION, status != NATS_CONNECTION_CLOSED else { return }
        try check(status, "unsubscribe")
    }

    /// Removes interest at the server but lets the messages already received reach the callback; the
    /// completion callback runs once they have, or after `timeout`. Throws when the subscription cannot
    /// drain (closed already, or the connection is reconnecting).
    func drain(timeout: Duration) throws {
        guard natsSubscription_IsValid(subscription) else {
            throw NATSError(code: .connectionClosed, detail: "the subscription is closed")
        }
        try check(natsSubscription_DrainTimeout(subscription, max(1, timeout.milliseconds)), "drain")
    }

    deinit {
        // Destroy removes interest too; nobody is left to report a failure to.
        natsSubscription_Destroy(subscription)
    }
}
