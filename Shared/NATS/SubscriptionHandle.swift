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

    deinit {
        // Destroy removes interest too; nobody is left to report a failure to.
        natsSubscription_Destroy(subscription)
    }
}
