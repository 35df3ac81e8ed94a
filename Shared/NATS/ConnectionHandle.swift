import CNats

/// Owns the cnats connection, its JetStream context and the request inbox subscription.
///
/// `@unchecked Sendable` is safe: cnats connections, subscriptions and JetStream contexts lock
/// internally and may be used from any thread; the pointers never change after init and are destroyed
/// only in `deinit`, when nothing else can reach them.
final class ConnectionHandle: @unchecked Sendable {
    let connection: OpaquePointer
    let jetStream: OpaquePointer
    let inbox: OpaquePointer

    init(connection: OpaquePointer, jetStream: OpaquePointer, inbox: OpaquePointer) {
        self.connection = connection
        self.jetStream = jetStream
        self.inbox = inbox
    }

    deinit {
        natsSubscription_Destroy(inbox)
        jsCtx_Destroy(jetStream)
        natsConnection_Destroy(connection)
    }
}
