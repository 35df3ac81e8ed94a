import CNats
import Collections
import Synchronization

/// Matches replies arriving on one wildcard inbox subscription (`_INBOX.<nuid>.*`) to the requests waiting
/// for them, and fails requests whose deadline passed.
///
/// Each request gets a random numeric token, the last token of its reply subject. Waiting requests are
/// continuations in a dictionary behind a mutex (or places in a ``ReplyBatch``, whose one continuation
/// waits for several); one ``DeadlineTimer``, armed for the earliest deadline, fails the late ones, so
/// no thread or task waits per request.
final class RequestMultiplexer: Sendable {
    typealias Continuation = CheckedContinuation<NATSMessage, any Error>

    /// Who waits for one token's reply.
    enum Waiter {
        /// One request's own continuation.
        case one(Continuation)
        /// Place `index` of a batch of requests waited for together.
        case batch(ReplyBatch, index: Int)

        func resume(with result: Result<NATSMessage, any Error>) {
            switch self {
            case .one(let continuation): continuation.resume(with: result)
            case .batch(let batch, let index): batch.fill(index, with: result)
            }
        }
    }

    /// A request's timeout, ordered by time. Entries of requests that already finished stay in the
    /// heap until their deadline passes (lazy deletion), which keeps the hot path to one push.
    private struct Deadline: Comparable {
        let at: UInt64
        let token: UInt64

        static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.at < rhs.at }
    }

    private struct State {
        var pending: [UInt64: Waiter] = [:]
        var deadlines = MinHeap<Deadline>()
    }

    /// The reply subject prefix, `<inbox prefix>.<nuid>.`, as bytes without a terminator.
    private let prefix: [UInt8]
    private let state = Mutex(State())
    private let timer: DeadlineTimer

    /// Creates a multiplexer with a fresh unique inbox under `inboxPrefix` (`_INBOX` unless the
    /// identity has its own).
    init(inboxPrefix: String = "_INBOX") throws {
        NATSLibrary.opened
        try Subject.validateName(inboxPrefix, kind: "inbox prefix")
        var inbox: UnsafeMutablePointer<natsInbox>?
        try check(natsInbox_Create(&inbox), "create inbox")
        defer { natsInbox_Destroy(inbox) }
        // natsInbox_Create always says `_INBOX.<nuid>`: keep the unique part, put the identity's prefix before it.
        let unique = String(cString: UnsafeRawPointer(inbox!).assumingMemoryBound(to: CChar.self)).split(separator: ".").last!
        prefix = Array("\(inboxPrefix).\(unique).".utf8)
        timer = DeadlineTimer(label: "nats.request-timeouts")
        timer.onDeadline { [weak self] in self?.expireDeadlines() }
    }

    /// The wildcard subject to subscribe to for all replies.
    var wildcardSubject: String { String(decoding: prefix, as: UTF8.self) + "*" }

    /// A new token for one request: random (the system's secure generator), so that no one who sees this
    /// connection's reply subjects can tell which are still waiting and answer one in the service's place.
    func makeToken() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return UInt64.random(in: 1...UInt64.max, using: &generator)
    }

    /// Calls `body` with the NUL-terminated reply subject for `token`, built on the stack.
    func withReplySubject<R>(_ token: UInt64, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: CChar.self, capacity: prefix.count + 21) { buffer in
            var index = 0
            for byte in prefix {
                buffer[index] = CChar(bitPattern: byte)
                index += 1
            }
            // Decimal digits, most significant first.
            var divisor: UInt64 = 1
            while token / divisor >= 10 { divisor *= 10 }
            while divisor > 0 {
                buffer[index] = CChar(48 + Int((token / divisor) % 10))
                index += 1
                divisor /= 10
            }
            buffer[index] = 0
            return try body(UnsafePointer(buffer.baseAddress!))
        }
    }

    /// Stores the continuation of request `token`, to be resumed by a reply, its deadline, cancellation or a
    /// disconnect.
    func register(_ token: UInt64, timeout: Duration, _ continuation: Continuation) {
        register(token, timeout: timeout, .one(continuation))
    }

    /// Stores who waits for request `token`, to be resumed by a reply, its deadline, cancellation or a
    /// disconnect.
    func register(_ token: UInt64, timeout: Duration, _ waiter: Waiter) {
        let deadline = DeadlineTimer.deadline(after: timeout)
        state.withLock { state in
            state.pending[token] = waiter
            state.deadlines.push(Deadline(at: deadline, token: token))
            timer.arm(atOrBefore: deadline)
        }
    }

    /// Resumes request `token` with `result` if it is still waiting.
    func complete(_ token: UInt64, with result: Result<NATSMessage, any Error>) {
        let waiter = state.withLock { $0.pending.removeValue(forKey: token) }
        waiter?.resume(with: result)
    }

    /// Fails every waiting request with `error` (used when the connection drops).
    func failAll(with error: NATSError) {
        let waiters = state.withLock { state in
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for waiter in waiters {
            waiter.resume(with: .failure(error))
        }
    }

    /// Handles one message on the inbox subscription: finds the token and resumes its request.
    func deliver(_ message: OpaquePointer) {
        guard let subject = natsMsg_GetSubject(message), let token = token(in: subject) else { return }
        if natsMsg_IsNoResponders(message) {
            complete(token, with: .failure(NATSError.noResponders))
        } else {
            complete(token, with: .success(NATSMessage(copying: message)))
        }
    }

    /// Parses the decimal token after the prefix of a reply subject.
    private func token(in subject: UnsafePointer<CChar>) -> UInt64? {
        var cursor = subject + prefix.count
        var token: UInt64 = 0
        var digits = 0
        while cursor.pointee != 0 {
            let digit = UInt8(bitPattern: cursor.pointee) &- UInt8(ascii: "0")
            guard digit < 10, digits < 20 else { return nil }
            token = token &* 10 &+ UInt64(digit)
            digits += 1
            cursor += 1
        }
        return digits > 0 ? token : nil
    }

    /// Fails the requests whose deadline passed and re-arms the timer for the next one.
    private func expireDeadlines() {
        let now = DeadlineTimer.now
        let expired = state.withLock { state -> [Waiter] in
            var expired: [Waiter] = []
            while let first = state.deadlines.min, first.at <= now {
                _ = state.deadlines.popMin()
                if let waiter = state.pending.removeValue(forKey: first.token) {
                    expired.append(waiter)
                }
            }
            // Entries of finished requests stay in the heap; the timer wakes no more often than its resolution.
            timer.rearm(for: state.deadlines.min?.at, now: now)
            return expired
        }
        for waiter in expired {
            waiter.resume(with: .failure(NATSError.timeout))
        }
    }
}
