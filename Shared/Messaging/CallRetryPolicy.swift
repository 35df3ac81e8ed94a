import Contracts
import NATS
import Runtime

/// When a ``ServiceClient`` call is sent again and when it gives up, decided without a clock of its own:
/// given what the attempt failed with, the call's ``State``, whether it is cancelled and the time `now`,
/// it says send again (after a pause, or at once) or give up, with which failure.
struct CallRetryPolicy: Sendable {
    /// How long a call keeps asking while nobody can take it, capped by its timeout (``ServiceClient/failoverPatience``).
    static let failoverPatience: Duration = .seconds(3)
    /// The least time left worth another attempt.
    static let shortestAttempt: Duration = .milliseconds(100)
    /// The pause before a call is sent again: about 25 ms, doubling to 400 ms.
    static let pauses = Backoff(first: .milliseconds(25), cap: .milliseconds(400), jitter: 0.75...1.25)

    /// The longest wait of one attempt for its answer.
    let timeout: Duration
    /// How many times a call that may have been handled (lost, or timed out) is sent again: 0 to 16.
    let retries: Int
    /// When the whole call gives up: `timeout` for each attempt it may make, no later than its caller's deadline.
    let deadline: ContinuousClock.Instant

    /// Where a call stands after an attempt.
    struct State: Sendable, Equatable {
        /// How many times the call was sent anew after it was lost or timed out.
        var resent: Int
        /// The pauses since the call was last sent anew.
        var paused: Int
        /// Until when the call keeps asking while nobody can take it.
        var patienceEnds: ContinuousClock.Instant
    }

    /// What a call does next.
    enum Decision: Sendable, Equatable {
        /// Send the call again after the pause (zero: at once), then stand at the state given.
        case sendAgain(after: Duration, State)
        /// Stop with this failure, a failed call.
        case giveUp(ServiceFailure)
        /// Stop: the caller cancelled the call while it paused.
        case cancelled
    }

    /// The policy of a call of `timeout` per attempt first sent at `start`; a call with no time at all (a
    /// timeout of zero, a caller that has given up) fails as timed out at once.
    init(timeout: Duration, retries: Int, start: ContinuousClock.Instant,
         callerGivesUp: ContinuousClock.Instant?) throws(ServiceFailure) {
        guard timeout > .zero else { throw Self.failure(for: .timeout) }
        self.timeout = timeout
        self.retries = min(max(0, retries), 16)
        var deadline = start + timeout * (self.retries + 1)
        // Called while a request is handled, no longer than its caller waits.
        if let callerGivesUp { deadline = min(deadline, callerGivesUp) }
        guard deadline > start else { throw Self.failure(for: .timeout) }
        self.deadline = deadline
    }

    /// The state of the call sent anew at `instant`, its `resent`-th resend: no pause yet, the patience
    /// counted from then.
    func sentAnew(at instant: ContinuousClock.Instant, resent: Int = 0) -> State {
        State(resent: resent, paused: 0, patienceEnds: min(deadline, instant + min(timeout, Self.failoverPatience)))
    }

    /// How long the attempt made at `now` waits for its answer: `timeout`, or what is left of the call.
    func attemptTimeout(at now: ContinuousClock.Instant) -> Duration {
        min(timeout, deadline - now)
    }

    /// What follows an attempt that failed with `error` at `now`: a call that reached nobody pauses and
    /// is sent again while its patience lasts; one lost (pausing too) or timed out (at once) is sent anew
    /// while resends are left; each only when an attempt still fits before the deadline. `draw` picks the
    /// pause's jitter factor.
    func afterFailure(_ error: NATSError, _ state: State, now: ContinuousClock.Instant, cancelled: Bool,
                      draw: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) -> Decision {
        guard !cancelled else { return .giveUp(Self.failure(for: error)) }
        let reachedNobody = error.code == .noResponders || error.code == .notConnected
        let resendLost = error.code == .connectionLost && state.resent < retries
        if reachedNobody || resendLost {
            // Jitter, so the calls that failed together do not all come back together.
            let pause = Self.pauses.delay(afterFailures: state.paused + 1, draw: draw)
            if now + pause + Self.shortestAttempt <= deadline, resendLost || now + pause <= state.patienceEnds {
                // The resend waits for the connection as a first call would.
                var next = resendLost ? sentAnew(at: now, resent: state.resent + 1) : state
                next.paused += 1
                return .sendAgain(after: pause, next)
            }
        } else if error.code == .timeout, state.resent < retries, now + Self.shortestAttempt <= deadline {
            // Sent again at once; should the connection be down by now, it waits for it as a first call would.
            return .sendAgain(after: .zero, sentAnew(at: now, resent: state.resent + 1))
        }
        return .giveUp(Self.failure(for: error))
    }

    /// What follows the pause after an attempt that failed with `error`, at `now`: the call is sent
    /// again at once with `state` unless it was cancelled or too little time is left for an answer.
    func afterPause(_ error: NATSError, _ state: State, now: ContinuousClock.Instant, cancelled: Bool) -> Decision {
        guard !cancelled else { return .cancelled }
        // A pause that overslept may leave too little for an answer: fail as the last attempt did.
        guard deadline - now >= Self.shortestAttempt / 2 else { return .giveUp(Self.failure(for: error)) }
        return .sendAgain(after: .zero, state)
    }

    /// The failure a call that gave up after `error` throws: `.timeout` after a timeout, `.unavailable` after anything else.
    static func failure(for error: NATSError) -> ServiceFailure {
        switch error {
        case .timeout:
            ServiceFailure(.timeout, "A service did not answer in time; try again.")
        default:
            .unavailable
        }
    }
}
