import CNats
import Logging
import Synchronization

/// Receives the connection's life-cycle callbacks (disconnected, reconnected, closed, async errors) from
/// cnats threads, logs them, fails waiting requests on disconnect and wakes `drainAndClose` callers.
final class ConnectionEvents: Sendable {
    private struct State {
        var permissionViolations = 0
    }

    let logger: Logger
    let multiplexer: RequestMultiplexer
    private let state = Mutex(State())
    private let closedLatch = Latch()

    init(logger: Logger, multiplexer: RequestMultiplexer) {
        self.logger = logger
        self.multiplexer = multiplexer
    }

    /// True once the closed callback ran.
    var isClosed: Bool { closedLatch.isOpen }

    func disconnected(closing: Bool) {
        if closing {
            logger.debug("NATS connection disconnected for close")
        } else {
            logger.warning("NATS connection lost, reconnecting")
        }
        // Replies to requests in flight are lost with the connection; fail them now instead of at their timeout.
        multiplexer.failAll(with: NATSError(code: .connectionLost, detail: "connection lost while waiting for the reply"))
    }

    func reconnected(url: String?) {
        logger.info("NATS connection re-established", url.map { ["nats.url": $0] } ?? [:])
    }

    /// Permission violations the server reported on this connection (a publish or subscribe its
    /// identity may not make: a deployment whose permissions lag the code, or an intruder).
    var permissionViolations: Int { state.withLock { $0.permissionViolations } }

    func asyncError(status: natsStatus, subject: String?) {
        let text = natsStatus_GetText(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
        var metadata = ["nats.error": text]
        if let subject { metadata["nats.subject"] = subject }
        if status == NATS_NOT_PERMITTED {
            state.withLock { $0.permissionViolations += 1 }
            logger.error("NATS permission violation: this identity may not use that subject", metadata)
        } else {
            logger.warning("NATS asynchronous error", metadata)
        }
    }

    func closed() {
        logger.info("NATS connection closed")
        multiplexer.failAll(with: .connectionClosed)
        closedLatch.open()
    }

    /// Returns once the closed callback ran.
    func waitUntilClosed() async {
        await closedLatch.wait()
    }
}
