import Logging
import NATS

/// The one loop that keeps a durable JetStream consumer bound, for ``EventConsumer``, ``EventBatchConsumer`` and
/// ``OrderedEventConsumer``: bind it (`bind`), let `consume` read from it until it ends or fails, then bind again a
/// second later (the connection was lost, the consumer deleted, the stream away), warning once per interruption, not
/// once per attempt: `consume` calls its `progressed` argument whenever a message came, which arms the warning again.
/// Stops the consumer when the task is cancelled, and returns then, or when `consume` says it is ``Next/finished``.
enum DurableBinding {
    /// What `consume` says when it returns.
    enum Next {
        /// Bind again (the consumer ended under it).
        case bindAgain
        /// Done for good: stop the consumer and return.
        case finished
    }

    static func run(logger: Logger, bind: () throws -> JetStreamConsumer,
                    consume: (JetStreamConsumer, _ progressed: () -> Void) async throws -> Next) async {
        var warned = false
        while !Task.isCancelled {
            do {
                let consumer = try bind()
                let next = try await withTaskCancellationHandler {
                    try await consume(consumer) { warned = false }
                } onCancel: {
                    consumer.stop()
                }
                if next == .finished {
                    consumer.stop()
                    return
                }
            } catch {
                if Task.isCancelled { break }
                if !warned {
                    logger.warning("event consumer interrupted; binding again", ["error": String(describing: error)])
                    warned = true
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
