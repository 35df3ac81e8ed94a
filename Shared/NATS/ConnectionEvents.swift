import CNats
import Collections
import Logging
import Synchronization

/// Receives the connection's life-cycle callbacks (disconnected, reconnected, closed, async errors) from
/// cnats threads, logs them, fails waiting requests on disconnect and wakes `drainAndClose` callers.
final class ConnectionEvents: Sendable {
    private struct State {
        var permissionViolations = 0
        var gapWatchers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWatcher = 0
        var closed = false
    }

    let logger: Logger
    let multiplexer: RequestMultiplexer
    private let state = Mutex(State())
    private let closedGate = Gate()

    init(logger: Logger, multiplexer: RequestMultiplexer) {
        self.logger = logger
        self.multiplexer = multiplexer
    }

    /// True once the closed callback ran.
    var isClosed: Bool { closedGate.isOpen }

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
        gapped()
    }

    /// A stream that yields each time messages of this connection's plain subscriptions may have been lost:
    /// after a reconnect (what was published while it was down), or when the library dropped messages of a
    /// subscription that fell behind (a slow consumer).
    func gaps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let key = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            defer { state.nextWatcher += 1 }
            state.gapWatchers[state.nextWatcher] = continuation
            return state.nextWatcher
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.gapWatchers.removeValue(forKey: key) }
        }
        return stream
    }

    private func gapped() {
        let watchers = state.withLock { Array($0.gapWatchers.values) }
        for watcher in watchers { watcher.yield() }
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
        } else if status == NATS_SLOW_CONSUMER {
            logger.warning("NATS subscription fell behind; messages were dropped", metadata)
            gapped()
        } else {
            logger.warning("NATS asynchronous error", metadata)
        }
    }

    func closed() {
        logger.info("NATS connection closed")
        let watchers = state.withLock { state in
            defer { state.gapWatchers.removeAll() }
            state.closed = true
            return Array(state.gapWatchers.values)
        }
        for watcher in watchers { watcher.finish() }
        multiplexer.failAll(with: .connectionClosed)
        closedGate.open()
    }

    /// Returns once the closed callback ran.
    func waitUntilClosed() async {
        await closedGate.opened()
    }
}
