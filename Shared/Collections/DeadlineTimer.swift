import Dispatch
import Synchronization

/// One Dispatch timer for many deadlines: it calls its handler once the earliest deadline it was armed
/// for has passed, and the handler re-arms it for the owner's next one. A NATS connection's request
/// timeouts, a PostgreSQL pool's waiters and an event consumer's progress reports use it instead of a timer each (a timer per waiter cost 4%
/// of member-service's CPU under load).
///
/// Deadlines are uptime nanoseconds (``deadline(after:)``). The owner calls ``arm(atOrBefore:)`` and
/// ``rearm(for:now:)`` under its own lock, so an arming and a re-arming never cross.
public final class DeadlineTimer: Sendable {
    /// How often at most the timer fires while deadlines are pending.
    public static let resolution = Duration.milliseconds(5)

    private struct State {
        let timer: any DispatchSourceTimer
        /// The deadline the timer is armed for; `.max` when disarmed.
        var armed: UInt64 = .max
    }

    private let state: Mutex<State>

    /// A disarmed timer firing on a queue of its own (`label`); give it its handler (``onDeadline(_:)``)
    /// before arming it.
    public init(label: String) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label))
        timer.resume()
        state = Mutex(State(timer: timer))
    }

    /// Sets what runs when an armed deadline passes (once, before the first ``arm(atOrBefore:)``; it
    /// captures its owner weakly, since the owner holds the timer).
    public func onDeadline(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.timer.setEventHandler(handler: handler) }
    }

    deinit {
        state.withLock { $0.timer.cancel() }
    }

    /// The uptime deadline `duration` from now (a negative one is now; a far one saturates, never wraps).
    public static func deadline(after duration: Duration) -> UInt64 {
        DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, duration.nanoseconds))
    }

    /// The current uptime, in the deadlines' unit.
    public static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Arms the timer for `deadline`, unless it is armed for an earlier one.
    public func arm(atOrBefore deadline: UInt64) {
        state.withLock { state in
            guard deadline < state.armed else { return }
            state.armed = deadline
            state.timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(1))
        }
    }

    /// From the handler: arms the timer for the owner's next deadline, never sooner than ``resolution``
    /// after `now` (finished entries may leave stale deadlines behind), or disarms it when there is none.
    public func rearm(for next: UInt64?, now: UInt64) {
        state.withLock { state in
            guard let next else {
                state.armed = .max
                return
            }
            state.armed = max(next, now &+ UInt64(Self.resolution.nanoseconds))
            state.timer.schedule(deadline: DispatchTime(uptimeNanoseconds: state.armed), leeway: .milliseconds(1))
        }
    }
}
