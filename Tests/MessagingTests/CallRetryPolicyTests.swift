import Contracts
@testable import Messaging
import NATS
import Testing

/// An arbitrary origin for the injected clock: every instant of these tests is an offset from it.
private let t0 = ContinuousClock.now

private func at(_ milliseconds: Int) -> ContinuousClock.Instant {
    t0 + .milliseconds(milliseconds)
}

/// No jitter: each pause is the backoff's ceiling.
private func noJitter(_ factors: ClosedRange<Double>) -> Double {
    1
}

@Suite("CallRetryPolicy: when a call is sent again and when it gives up")
struct CallRetryPolicyTests {
    @Test("the deadline is the timeout for each attempt it may make, retries 0 to 16, no later than the caller's")
    func deadline() throws {
        #expect(try CallRetryPolicy(timeout: .seconds(5), retries: 0, start: t0, callerGivesUp: nil).deadline == at(5_000))
        #expect(try CallRetryPolicy(timeout: .seconds(5), retries: 1, start: t0, callerGivesUp: nil).deadline == at(10_000))
        let negative = try CallRetryPolicy(timeout: .seconds(1), retries: -3, start: t0, callerGivesUp: nil)
        #expect(negative.retries == 0 && negative.deadline == at(1_000))
        let many = try CallRetryPolicy(timeout: .seconds(1), retries: 40, start: t0, callerGivesUp: nil)
        #expect(many.retries == 16 && many.deadline == at(17_000))
        #expect(try CallRetryPolicy(timeout: .seconds(5), retries: 1, start: t0, callerGivesUp: at(2_500)).deadline == at(2_500))
        #expect(try CallRetryPolicy(timeout: .seconds(5), retries: 0, start: t0, callerGivesUp: at(9_000)).deadline == at(5_000))
    }

    @Test("a call with no time at all fails as timed out before it is sent", arguments: [
        (Duration.zero, Int?.none), (.milliseconds(-1), nil), (.seconds(5), 0), (.seconds(5), -1),
    ])
    func noTime(timeout: Duration, callerGivesUpAfter: Int?) {
        #expect(throws: ServiceFailure(.timeout, "A service did not answer in time; try again.")) {
            try CallRetryPolicy(timeout: timeout, retries: 1, start: t0, callerGivesUp: callerGivesUpAfter.map(at))
        }
    }

    @Test("the patience is 3 s from each sending anew, or the timeout if shorter, never past the deadline")
    func patience() throws {
        let long = try CallRetryPolicy(timeout: .seconds(5), retries: 1, start: t0, callerGivesUp: nil)
        #expect(long.sentAnew(at: t0) == .init(resent: 0, paused: 0, patienceEnds: at(3_000)))
        #expect(long.sentAnew(at: at(4_000), resent: 1) == .init(resent: 1, paused: 0, patienceEnds: at(7_000)))
        #expect(long.sentAnew(at: at(8_000), resent: 1).patienceEnds == at(10_000))
        let short = try CallRetryPolicy(timeout: .seconds(1), retries: 3, start: t0, callerGivesUp: nil)
        #expect(short.sentAnew(at: t0).patienceEnds == at(1_000))
        #expect(short.sentAnew(at: at(2_000), resent: 2).patienceEnds == at(3_000))
        let hurried = try CallRetryPolicy(timeout: .seconds(5), retries: 0, start: t0, callerGivesUp: at(2_000))
        #expect(hurried.sentAnew(at: t0).patienceEnds == at(2_000))
        #expect(ServiceClient.failoverPatience == .seconds(3))
    }

    @Test("an attempt waits the timeout, or what is left of the call")
    func attemptTimeout() throws {
        let policy = try CallRetryPolicy(timeout: .seconds(2), retries: 1, start: t0, callerGivesUp: nil)
        #expect(policy.attemptTimeout(at: t0) == .seconds(2))
        #expect(policy.attemptTimeout(at: at(2_500)) == .milliseconds(1_500))
        #expect(policy.attemptTimeout(at: at(3_999)) == .milliseconds(1))
    }

    @Test("each error × retries × patience × time left × cancelled", arguments: Situation.all)
    func matrix(_ situation: Situation) throws {
        let policy = try CallRetryPolicy(timeout: .seconds(5), retries: situation.retries, start: t0, callerGivesUp: nil)
        let now = policy.deadline - situation.left.before
        // One pause already made, so the state given back differs from the one that came in.
        let state = CallRetryPolicy.State(resent: 0, paused: 1,
                                          patienceEnds: situation.patienceLeft ? policy.deadline : now)
        let decision = policy.afterFailure(situation.error, state, now: now, cancelled: situation.cancelled, draw: noJitter)
        switch situation.expected {
        case .pause:
            let next = situation.error.code == .connectionLost
                ? CallRetryPolicy.State(resent: 1, paused: 1, patienceEnds: now + .seconds(3))
                : CallRetryPolicy.State(resent: 0, paused: 2, patienceEnds: state.patienceEnds)
            #expect(decision == .sendAgain(after: .milliseconds(50), next))
        case .resendNow:
            #expect(decision == .sendAgain(after: .zero, .init(resent: 1, paused: 0, patienceEnds: min(now + .seconds(3), policy.deadline))))
        case .giveUp(let code):
            guard case .giveUp(let failure) = decision else {
                Issue.record("expected to give up with \(code), got \(decision)")
                return
            }
            #expect(failure.code == code)
            if code == .serviceUnavailable { #expect(failure == .unavailable) }
        }
    }

    @Test("with nobody answering, the pause grows from 25 ms, doubles to 400 ms, and the call gives up once the next pause would outlast the patience")
    func pausesGrowAndCap() throws {
        let policy = try CallRetryPolicy(timeout: .seconds(20), retries: 0, start: t0, callerGivesUp: nil)
        var state = policy.sentAnew(at: t0)
        var now = t0
        var pauses: [Duration] = []
        while case .sendAgain(let pause, let next) = policy.afterFailure(.noResponders, state, now: now, cancelled: false, draw: noJitter) {
            pauses.append(pause)
            #expect(next.paused == state.paused + 1 && next.patienceEnds == at(3_000) && next.resent == 0)
            state = next
            now = now + pause
        }
        #expect(pauses == [25, 50, 100, 200, 400, 400, 400, 400, 400, 400].map { .milliseconds($0) })
        #expect(now == at(2_775))
        #expect(policy.afterFailure(.noResponders, state, now: now, cancelled: false, draw: noJitter) == .giveUp(.unavailable))
    }

    @Test("the pause's jitter is drawn from 0.75 to 1.25 of the backoff's wait")
    func jitter() throws {
        let policy = try CallRetryPolicy(timeout: .seconds(5), retries: 0, start: t0, callerGivesUp: nil)
        let state = CallRetryPolicy.State(resent: 0, paused: 2, patienceEnds: at(3_000))
        var ranges: [ClosedRange<Double>] = []
        let low = policy.afterFailure(.notConnected, state, now: t0, cancelled: false) { ranges.append($0); return $0.lowerBound }
        let high = policy.afterFailure(.notConnected, state, now: t0, cancelled: false) { ranges.append($0); return $0.upperBound }
        #expect(ranges == [0.75...1.25, 0.75...1.25])
        #expect(low == .sendAgain(after: .milliseconds(75), .init(resent: 0, paused: 3, patienceEnds: at(3_000))))
        #expect(high == .sendAgain(after: .milliseconds(125), .init(resent: 0, paused: 3, patienceEnds: at(3_000))))
        // The default draw stays within the range.
        for _ in 0..<100 {
            guard case .sendAgain(let pause, _) = policy.afterFailure(.noResponders, state, now: t0, cancelled: false) else {
                Issue.record("a call with time and patience left gave up")
                return
            }
            #expect(pause >= .milliseconds(75) && pause <= .milliseconds(125))
        }
    }

    @Test("a pause is taken only if it ends within the patience and an attempt of 100 ms still fits after it")
    func pauseBounds() throws {
        let policy = try CallRetryPolicy(timeout: .seconds(5), retries: 0, start: t0, callerGivesUp: nil)
        let pause: Duration = .milliseconds(25)
        func decide(patienceEnds: ContinuousClock.Instant, now: ContinuousClock.Instant) -> CallRetryPolicy.Decision {
            policy.afterFailure(.noResponders, .init(resent: 0, paused: 0, patienceEnds: patienceEnds), now: now, cancelled: false, draw: noJitter)
        }
        #expect(decide(patienceEnds: at(1_025), now: at(1_000)) == .sendAgain(after: pause, .init(resent: 0, paused: 1, patienceEnds: at(1_025))))
        #expect(decide(patienceEnds: at(1_024), now: at(1_000)) == .giveUp(.unavailable))
        #expect(decide(patienceEnds: at(5_000), now: at(4_875)) == .sendAgain(after: pause, .init(resent: 0, paused: 1, patienceEnds: at(5_000))))
        #expect(decide(patienceEnds: at(5_000), now: at(4_876)) == .giveUp(.unavailable))
    }

    @Test("a lost call is sent again once with retries 1, its patience counted anew, and not with retries 0")
    func lostCallResentOnce() throws {
        let policy = try CallRetryPolicy(timeout: .seconds(5), retries: 1, start: t0, callerGivesUp: nil)
        // Two pauses while nobody subscribed, then it was sent and lost past the first patience (3 s).
        let paused = CallRetryPolicy.State(resent: 0, paused: 2, patienceEnds: at(3_000))
        let resend = policy.afterFailure(.connectionLost, paused, now: at(4_000), cancelled: false, draw: noJitter)
        // The pause is the one after the pauses so far (the third: 100 ms); they count from 1 again after it.
        #expect(resend == .sendAgain(after: .milliseconds(100), .init(resent: 1, paused: 1, patienceEnds: at(7_000))))
        guard case .sendAgain(_, let state) = resend else { return }
        // The resend waits for the connection within the new patience, as a first call would.
        #expect(policy.afterFailure(.notConnected, state, now: at(6_500), cancelled: false, draw: noJitter)
                == .sendAgain(after: .milliseconds(50), .init(resent: 1, paused: 2, patienceEnds: at(7_000))))
        // Lost again: no resend is left.
        #expect(policy.afterFailure(.connectionLost, state, now: at(6_500), cancelled: false, draw: noJitter) == .giveUp(.unavailable))

        let once = try CallRetryPolicy(timeout: .seconds(5), retries: 0, start: t0, callerGivesUp: nil)
        #expect(once.afterFailure(.connectionLost, once.sentAnew(at: t0), now: at(100), cancelled: false, draw: noJitter) == .giveUp(.unavailable))
    }

    @Test("a timed-out call is sent again at once while resends are left and 100 ms fits, then gives up as a timeout")
    func timeoutResentAtOnce() throws {
        let timedOut = ServiceFailure(.timeout, "A service did not answer in time; try again.")
        let policy = try CallRetryPolicy(timeout: .seconds(5), retries: 2, start: t0, callerGivesUp: nil)
        var state = CallRetryPolicy.State(resent: 0, paused: 3, patienceEnds: at(3_000))
        var decision = policy.afterFailure(.timeout, state, now: at(5_000), cancelled: false)
        #expect(decision == .sendAgain(after: .zero, .init(resent: 1, paused: 0, patienceEnds: at(8_000))))
        state = .init(resent: 1, paused: 0, patienceEnds: at(8_000))
        decision = policy.afterFailure(.timeout, state, now: at(10_000), cancelled: false)
        #expect(decision == .sendAgain(after: .zero, .init(resent: 2, paused: 0, patienceEnds: at(13_000))))
        state = .init(resent: 2, paused: 0, patienceEnds: at(13_000))
        #expect(policy.afterFailure(.timeout, state, now: at(14_000), cancelled: false) == .giveUp(timedOut))

        // The last 100 ms: still an attempt; less: none.
        let one = try CallRetryPolicy(timeout: .seconds(5), retries: 1, start: t0, callerGivesUp: nil)
        #expect(one.afterFailure(.timeout, one.sentAnew(at: t0), now: at(9_900), cancelled: false)
                == .sendAgain(after: .zero, .init(resent: 1, paused: 0, patienceEnds: at(10_000))))
        #expect(one.afterFailure(.timeout, one.sentAnew(at: t0), now: at(9_901), cancelled: false) == .giveUp(timedOut))
    }

    @Test("a call gives up as a timeout after a timeout and as unavailable after anything else", arguments: [
        (NATSError.timeout, ErrorCode.timeout), (.noResponders, .serviceUnavailable), (.notConnected, .serviceUnavailable),
        (.connectionLost, .serviceUnavailable), (.connectionClosed, .serviceUnavailable), (.connectionFailed, .serviceUnavailable),
        (NATSError(code: .protocolError, detail: "x"), .serviceUnavailable), (.jetStream(10059), .serviceUnavailable),
    ])
    func failures(error: NATSError, code: ErrorCode) throws {
        #expect(CallRetryPolicy.failure(for: error).code == code)
        let policy = try CallRetryPolicy(timeout: .seconds(1), retries: 0, start: t0, callerGivesUp: nil)
        // Past the deadline, every error gives up with its failure.
        #expect(policy.afterFailure(error, policy.sentAnew(at: t0), now: at(1_000), cancelled: false, draw: noJitter)
                == .giveUp(CallRetryPolicy.failure(for: error)))
    }

    @Test("after a pause the call is sent at once if 50 ms are left; an overslept pause fails as the last attempt did; a cancelled one ends the call")
    func afterPause() throws {
        let policy = try CallRetryPolicy(timeout: .seconds(1), retries: 0, start: t0, callerGivesUp: nil)
        let state = CallRetryPolicy.State(resent: 0, paused: 4, patienceEnds: at(1_000))
        #expect(policy.afterPause(.noResponders, state, now: at(400), cancelled: false) == .sendAgain(after: .zero, state))
        #expect(policy.afterPause(.noResponders, state, now: at(950), cancelled: false) == .sendAgain(after: .zero, state))
        #expect(policy.afterPause(.noResponders, state, now: at(951), cancelled: false) == .giveUp(.unavailable))
        #expect(policy.afterPause(.connectionLost, state, now: at(2_000), cancelled: false) == .giveUp(.unavailable))
        #expect(policy.afterPause(.noResponders, state, now: at(400), cancelled: true) == .cancelled)
        #expect(policy.afterPause(.noResponders, state, now: at(2_000), cancelled: true) == .cancelled)
    }

    @Test("a call cancelled when its attempt fails gives up with that attempt's failure, even with time and resends left")
    func cancelledAfterFailure() throws {
        let policy = try CallRetryPolicy(timeout: .seconds(5), retries: 1, start: t0, callerGivesUp: nil)
        let state = policy.sentAnew(at: t0)
        #expect(policy.afterFailure(.noResponders, state, now: at(10), cancelled: true, draw: noJitter) == .giveUp(.unavailable))
        #expect(policy.afterFailure(.connectionLost, state, now: at(10), cancelled: true, draw: noJitter) == .giveUp(.unavailable))
        #expect(policy.afterFailure(.timeout, state, now: at(5_000), cancelled: true, draw: noJitter)
                == .giveUp(ServiceFailure(.timeout, "A service did not answer in time; try again.")))
    }
}

/// One cell of the matrix: an attempt's error, the call's retries, whether patience is left, how much
/// time is left and whether the call is cancelled, with the outcome the policy must give.
struct Situation: Sendable, CustomTestStringConvertible {
    enum Left: CaseIterable, Sendable {
        /// Far from the deadline.
        case plenty
        /// 110 ms: an attempt fits, a pause and an attempt do not.
        case near
        /// 50 ms: not even an attempt fits.
        case past

        var before: Duration {
            switch self {
            case .plenty: .seconds(4)
            case .near: .milliseconds(110)
            case .past: .milliseconds(50)
            }
        }
    }

    enum Outcome: Equatable {
        case pause, resendNow, giveUp(ErrorCode)
    }

    let error: NATSError
    let retries: Int
    let patienceLeft: Bool
    let left: Left
    let cancelled: Bool

    static let errors: [NATSError] = [.noResponders, .notConnected, .connectionLost, .timeout, .connectionClosed, NATSError(code: .protocolError)]

    static let all: [Situation] = errors.flatMap { error in
        [0, 1].flatMap { retries in
            [true, false].flatMap { patienceLeft in
                Left.allCases.flatMap { left in
                    [false, true].map { Situation(error: error, retries: retries, patienceLeft: patienceLeft, left: left, cancelled: $0) }
                }
            }
        }
    }

    /// What the call must do, stated per error kind.
    var expected: Outcome {
        let failed: Outcome = .giveUp(error.code == .timeout ? .timeout : .serviceUnavailable)
        if cancelled { return failed }
        switch error.code {
        case .noResponders, .notConnected:
            return patienceLeft && left == .plenty ? .pause : failed
        case .connectionLost:
            return retries > 0 && left == .plenty ? .pause : failed
        case .timeout:
            return retries > 0 && left != .past ? .resendNow : failed
        default:
            return failed
        }
    }

    var testDescription: String {
        "\(error.code), retries \(retries), patience \(patienceLeft ? "left" : "ended"), time \(left)\(cancelled ? ", cancelled" : "")"
    }
}
