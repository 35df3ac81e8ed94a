import Contracts
import JSON
import Logging
import Metrics
import NATS
import Runtime

/// Calls other services over NATS with typed endpoints, turning transport failures into the
/// service failures the gateway maps to HTTP (no responders → 503, timeout → 504). A call made while a
/// request is handled (``RequestID/current``) carries that request's ID in the `X-Request-Id` header.
public struct ServiceClient: Sendable {
    /// The connection requests go out on.
    public let connection: NATSConnection
    private let logger: Logger
    private let metrics: MetricsRegistry?
    /// With it, every reply is sealed to this process and opened here (``ReplySeal``).
    private let sealing: ReplySeal?

    /// Creates a client on `connection`; with `metrics`, each call's latency and failures are counted by subject.
    ///
    /// With `sealing`, each request asks for its reply to be sealed to this process, and a reply that is not
    /// so sealed is refused: whoever else reads this identity's inbox learns nothing from it.
    public init(connection: NATSConnection, logger: Logger, metrics: MetricsRegistry? = nil, sealing: ReplySeal? = nil) {
        self.connection = connection
        self.logger = logger
        self.metrics = metrics
        self.sealing = sealing
        metrics?.describeHistogram("nats_request_duration_seconds", "Time for a service to answer over NATS, by subject.")
        metrics?.describeCounter("nats_request_errors_total", "NATS calls that failed (no responders, timeout, ...), by subject and error.")
        metrics?.describeCounter("nats_request_retries_total", "NATS calls sent again (no responder yet, connection down or lost, timeout), by subject and error.")
    }

    /// How long a call keeps asking while nobody can take it: the connection is down, or no replica
    /// subscribes. A NATS cluster that loses a node moves the clients that were on it to the others
    /// within a second or two; a call made meanwhile waits for that rather than failing. Capped by the
    /// call's own timeout.
    public static let failoverPatience: Duration = .seconds(3)

    /// The least time left worth another attempt.
    private static let shortestAttempt: Duration = .milliseconds(100)
    /// The pause before a call is sent again: about 25 ms, doubling to 400 ms.
    static let pauses = Backoff(first: .milliseconds(25), cap: .milliseconds(400), jitter: 0.75...1.25)

    /// Sends `request` to `endpoint` and returns its reply, or throws the service's failure.
    ///
    /// The whole call, every attempt and pause included, takes at most `timeout` for each attempt it
    /// may make (`timeout × (retries + 1)`, `retries` at most 16). A call that reached nobody (no
    /// responder, or the connection down before it was sent) is sent again, whatever the endpoint,
    /// after a short pause growing from about 25 to 400 ms, for up to ``failoverPatience``. With
    /// `retries` above zero, a call that may have been handled but got no reply (it timed out, or the
    /// connection went down while it waited) is sent again too, once the connection is back, with the
    /// patience counted anew (only for idempotent endpoints: a replica or a NATS node died
    /// mid-request); never one with `retries` zero.
    public func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request,
                                     timeout: Duration, retries: Int = 0) async throws(ServiceFailure) -> Reply {
        let payload: [UInt8]
        do {
            payload = try MessageCoding.encode(request)
        } catch {
            logger.error("request encoding failed", ["nats.subject": endpoint.subject])
            throw .internal
        }
        let sealed = sealing?.requestHeaders() ?? [:]
        let message = try await send(endpoint.subject, payload, timeout: timeout, retries: retries, headers: sealed)
        let reply: ServiceReply<Reply>
        do {
            let plaintext = try sealing.map { try $0.open(message, headers: sealed) } ?? message.payload
            reply = try MessageCoding.decode(ServiceReply<Reply>.self, from: plaintext)
        } catch {
            logger.error("reply decoding failed", ["nats.subject": endpoint.subject])
            throw ServiceFailure.internal
        }
        return try reply.get()
    }

    /// Sends an encoded request to `subject` and returns the reply as it came, under the same policy as
    /// ``call(_:_:timeout:retries:)``: a chain's hop uses it to hand a request on and pass the answer back
    /// unread.
    public func send(_ subject: String, _ payload: [UInt8], timeout: Duration, retries: Int = 0,
                     headers extra: [String: String] = [:]) async throws(ServiceFailure) -> NATSMessage {
        guard timeout > .zero else { throw Self.failure(for: .timeout) }
        let retries = min(max(0, retries), 16)
        var headers = extra
        if let id = RequestID.current { headers[RequestID.header] = id.value }
        let firstStarted = ContinuousClock.now
        var deadline = firstStarted + timeout * (retries + 1)
        // Called while a request is handled, no longer than its caller waits.
        if let callerGivesUp = RequestDeadline.current { deadline = min(deadline, callerGivesUp) }
        guard deadline > firstStarted else { throw Self.failure(for: .timeout) }
        // How long an attempt made at `start` may keep asking while nobody can take it.
        func patience(from start: ContinuousClock.Instant) -> ContinuousClock.Instant {
            min(deadline, start + min(timeout, Self.failoverPatience))
        }
        var patienceEnds = patience(from: firstStarted)
        // The pauses since the call was last sent anew.
        var paused = 0
        var attempt = 0
        while true {
            let started = ContinuousClock.now
            do {
                let wait = min(timeout, deadline - started)
                headers[RequestDeadline.header] = RequestDeadline.value(wait)
                let message = try await connection.request(subject, payload, headers: headers, timeout: wait)
                if let metrics {
                    let elapsed = ContinuousClock.now - started
                    metrics.observe("nats_request_duration_seconds", ["subject": subject], elapsed.timeInterval)
                }
                return message
            } catch let error as NATSError {
                let labels = ["subject": subject, "error": error.code.description]
                let now = ContinuousClock.now
                // Jitter, so the calls that failed together do not all come back together.
                let wait = Self.pauses.delay(afterFailures: paused + 1)
                let nextFits = now + wait + Self.shortestAttempt <= deadline
                let reachedNobody = error.code == .noResponders || error.code == .notConnected
                let resendLost = error.code == .connectionLost && attempt < retries
                if !Task.isCancelled, nextFits, reachedNobody && now + wait <= patienceEnds || resendLost {
                    if resendLost {
                        attempt += 1
                        // The resend waits for the connection as a first call would.
                        patienceEnds = patience(from: now)
                        paused = 0
                    }
                    logger.debug("waiting to call again", ["nats.subject": subject, "nats.error": error.code.description])
                    try? await Task.sleep(for: wait)
                    if Task.isCancelled { throw Self.cancelled }
                    paused += 1
                    // A pause that overslept may leave too little for an answer: fail as the last attempt did.
                    if deadline - ContinuousClock.now >= Self.shortestAttempt / 2 {
                        metrics?.increment("nats_request_retries_total", labels)
                        continue
                    }
                } else if !Task.isCancelled, error.code == .timeout, attempt < retries, now + Self.shortestAttempt <= deadline {
                    attempt += 1
                    // Sent again at once; should the connection be down by now, it waits for it as a first call would.
                    patienceEnds = patience(from: now)
                    paused = 0
                    metrics?.increment("nats_request_retries_total", labels)
                    logger.warning("retrying call", ["nats.subject": subject, "nats.error": error.code.description])
                    continue
                }
                metrics?.increment("nats_request_errors_total", labels)
                logger.warning("call failed", ["nats.subject": subject, "nats.error": error.code.description])
                throw Self.failure(for: error)
            } catch {
                throw Task.isCancelled ? Self.cancelled : .internal
            }
        }
    }

    /// What a call cancelled by its caller throws.
    static let cancelled = ServiceFailure(.timeout, "The request was cancelled.")

    static func failure(for error: NATSError) -> ServiceFailure {
        switch error {
        case .timeout:
            ServiceFailure(.timeout, "A service did not answer in time; try again.")
        default:
            .unavailable
        }
    }
}
