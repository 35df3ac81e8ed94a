import Logging
import NATS

/// Sends an acknowledgement the server confirms, again up to twice when it fails: a lost one would leave the
/// message to come back only after the ack wait, whatever the handler asked for. For ``EventConsumer`` and
/// ``OrderedEventConsumer``.
enum Acknowledgement {
    static func send(_ message: JetStreamMessage, _ kind: String, logger: Logger, _ send: () async throws -> Void) async {
        for attempt in 1...3 {
            do {
                try await send()
                return
            } catch {
                if attempt == 3 || Task.isCancelled {
                    logger.warning("acknowledgement failed; the event comes again after the ack wait",
                                   ["nats.ack": kind, "nats.sequence": String(message.streamSequence), "error": String(describing: error)])
                    return
                }
                try? await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }
}
