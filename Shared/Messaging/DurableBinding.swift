import Logging
import NATS

/// The one loop that keeps a durable JetStream consumer bound, for ``EventConsumer`` and ``EventBatchConsumer``:
/// bind it (`bind`), let `consume` read from it until it ends or fails, then bind again a second later (the
/// connection was lost, the consumer deleted, the stream away), warning once per interruption, not once per
/// attempt: `consume` calls its `progressed` argument whenever a message came, which arms the warning again.
/// Stops the consumer when the task is cancelled, and returns then.
enum DurableBinding {
    static func run(logger: Logger, bind: () throws -> JetStreamConsumer,
                    consume: (JetStreamConsumer, _ progressed: () -> Void) async throws -> Void) async {
        var warned = false
        while !Task.isCancelled {
            do {
                let consumer = try bind()
                try await withTaskCancellationHandler {
                    try await consume(consumer) { warned = false }
                } onCancel: {
                    consumer.stop()
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
