import Collections
import Logging
import NATS
import Synchronization

/// The progress reports of the events one ``EventConsumer`` is handling: each event's ack timer is reset
/// every `interval`, counted from when the event was fetched, until its limit passes. One Dispatch timer
/// sends them all, off Swift's cooperative pool: with a task sleeping between beats, a pool kept busy for
/// a second or more (seen under the test suite's load on two cores) let an event's ack wait run out
/// between beats, and the event was delivered a second time while its handler still worked on it.
final class ProgressBeats: Sendable {
    private struct Beat {
        let message: JetStreamMessage
        var due: UInt64
        let limit: UInt64
    }

    private struct State {
        var lastToken: UInt64 = 0
        var beats: [UInt64: Beat] = [:]
    }

    private let interval: UInt64
    private let logger: Logger
    private let timer: DeadlineTimer
    private let state = Mutex(State())

    /// Beats every `interval` (at least a millisecond) for each event started.
    init(interval: Duration, logger: Logger) {
        self.interval = UInt64(max(Duration.milliseconds(1).nanoseconds, interval.nanoseconds))
        self.logger = logger
        timer = DeadlineTimer(label: "events.progress.\(logger.metadata["nats.durable"] ?? "consumer")")
        timer.onDeadline { [weak self] in self?.beat() }
    }

    /// Reports progress on `message` from one interval after it was fetched (at once if that has passed)
    /// until `handlingTime` after it was fetched. Returns what to hand to ``stop(_:)``.
    func start(_ message: JetStreamMessage, for handlingTime: Duration) -> UInt64 {
        let due = message.receivedAt &+ interval
        let limit = message.receivedAt &+ UInt64(max(0, handlingTime.nanoseconds))
        return state.withLock { state in
            state.lastToken += 1
            state.beats[state.lastToken] = Beat(message: message, due: due, limit: limit)
            timer.arm(atOrBefore: due)
            return state.lastToken
        }
    }

    /// Ends the reports on an event. Once it returns no report on it is sent any more: one sent after
    /// the caller's `-NAK` with a delay would restart the ack timer, and the retry would come only after
    /// the ack wait.
    func stop(_ token: UInt64) {
        _ = state.withLock { $0.beats.removeValue(forKey: token) }
    }

    private func beat() {
        let now = DeadlineTimer.now
        let lapsed = state.withLock { state -> [JetStreamMessage] in
            var lapsed: [JetStreamMessage] = []
            for (token, beat) in state.beats where beat.due <= now {
                guard beat.due <= beat.limit else {
                    state.beats[token] = nil
                    lapsed.append(beat.message)
                    continue
                }
                // Sent under the lock, so that stop() cannot return while a report is on its way. A publish
                // usually only copies into cnats's buffer; with the buffer full it writes to the socket.
                try? beat.message.signalInProgress()
                // Kept to the clock: a late beat does not push the next one back, unless a whole interval was missed.
                let next = beat.due &+ interval
                state.beats[token]?.due = next > now ? next : now &+ interval
            }
            timer.rearm(for: state.beats.values.lazy.map(\.due).min(), now: now)
            return lapsed
        }
        for message in lapsed {
            logger.warning("event handler still working; its progress is no longer reported, so the event goes to another replica after the ack wait",
                           ["nats.sequence": String(message.streamSequence), "delivery": String(message.deliveryCount)])
        }
    }
}
