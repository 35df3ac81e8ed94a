import Collections
import Contracts
import Dispatch
import Foundation
import JSON
import Logging
import NATS
import Runtime
import Synchronization

/// Serves one endpoint: subscribes to its subject in the service's queue group, decodes each
/// request, runs the handler concurrently (up to a bound) and replies with the envelope.
/// It counts requests, failures and time spent for service discovery (`$SRV.STATS`), and the requests it
/// dropped unread because their reply subject is no inbox.
///
/// The handler runs with the request's ID (the caller's `X-Request-Id` header when sane, else a new one)
/// as ``RequestID/current``: its log lines carry it as `request.id`, and the calls it makes pass it on. At
/// debug level each request is logged once it is answered: subject, outcome, duration and ID, nothing of
/// the payload.
public struct Responder<Request: Codable & Sendable, Reply: Codable & Sendable>: Service, ServiceDiscovery.EndpointReporting {
    /// The handler of one request. A thrown `ServiceFailure` (or `ServiceFailureConvertible`)
    /// is the answer; any other error is logged and answered as `INTERNAL`.
    public typealias Handler = @Sendable (Request) async throws -> Reply
    /// The handler of one hop of a chain: it answers, or hands the request on (``Hop``).
    public typealias Relay = @Sendable (Request) async throws -> Hop<Reply>

    private let connection: NATSConnection
    /// Hands a chain's requests on to the next hop.
    private let next: ServiceClient
    /// The inbox prefixes of the identities that may send this endpoint's requests; nil for an endpoint
    /// outside the table (pings, service discovery), which any identity's inbox may ask.
    private let replyPrefixes: [String]?
    /// How long a hop waits for the next at most, when its caller did not say how long it waits.
    static var handOnTimeout: Duration { .seconds(10) }
    private let endpoint: Endpoint<Request, Reply>
    private let queue: String
    private let maxConcurrent: Int
    private let startsOnDeliveryThread: Bool
    private let logger: Logger
    private let handler: Relay
    /// Headers this endpoint's answers carry beside a reply, made from it, for the hop that called: in the
    /// clear (a sealed reply stays sealed), and never passed further back, for a hop passes back only the reply.
    private let noting: (@Sendable (Reply) -> [String: String])?
    /// Shown every answer the next hop gave, its headers included, before it is passed back.
    private let handedBack: (@Sendable (NATSMessage) -> Void)?
    /// This endpoint's request and error counts, for ``ServiceDiscovery``.
    public let counters: ServiceDiscovery.EndpointCounters

    /// Creates a responder for `endpoint` in queue group `queue`.
    ///
    /// A handler starts on cnats's delivery thread and leaves it at its first suspension (a database call):
    /// one thread hand-off less per request. A handler that computes before it suspends (a signature check)
    /// would so compute on that one thread for every request of the endpoint: give it
    /// `startsOnDeliveryThread: false`, and it starts on Swift's pool, on every core.
    public init(connection: NATSConnection, endpoint: Endpoint<Request, Reply>, queue: String,
                maxConcurrent: Int = 256, startsOnDeliveryThread: Bool = true, logger: Logger,
                noting: (@Sendable (Reply) -> [String: String])? = nil, handler: @escaping Handler) {
        self.init(connection: connection, endpoint: endpoint, queue: queue, maxConcurrent: maxConcurrent,
                  startsOnDeliveryThread: startsOnDeliveryThread, logger: logger, noting: noting,
                  relaying: { .answer(try await handler($0)) })
    }

    /// Creates a responder for one hop of a chain: `handler` answers the request, or hands it on to the next
    /// service (with the request ID and what is left of the caller's patience), whose answer it passes back
    /// to the caller unread. A failure thrown is answered to the caller at once, by this hop.
    ///
    /// `noting` makes headers for each reply this hop answers itself (``noting``); `handedBack` sees each
    /// answer of the next hop before it is passed back.
    public init(connection: NATSConnection, endpoint: Endpoint<Request, Reply>, queue: String,
                maxConcurrent: Int = 256, startsOnDeliveryThread: Bool = true, logger: Logger,
                noting: (@Sendable (Reply) -> [String: String])? = nil, handedBack: (@Sendable (NATSMessage) -> Void)? = nil,
                relaying handler: @escaping Relay) {
        self.connection = connection
        self.next = ServiceClient(connection: connection, logger: logger)
        self.replyPrefixes = BusSubjects.requests.first { $0.subject == endpoint.subject }.map { $0.sentBy.map { $0.inboxPrefix + "." } }
        self.endpoint = endpoint
        self.queue = queue
        self.maxConcurrent = maxConcurrent
        self.startsOnDeliveryThread = startsOnDeliveryThread
        self.logger = logger.with(["nats.subject": endpoint.subject])
        self.handler = handler
        self.noting = noting
        self.handedBack = handedBack
        self.counters = ServiceDiscovery.EndpointCounters(subject: endpoint.subject, queueGroup: queue)
    }

    /// The endpoint's subject.
    public var name: String { endpoint.subject }

    public func run() async throws {
        let running = RunningHandlers(limit: maxConcurrent)
        // Each request's handler starts on cnats's delivery thread (Task.immediate) and leaves it at its first
        // suspension: no task of a serving loop is woken to start it. At `maxConcurrent` handlers running,
        // the delivery thread waits for one to finish.
        let subscription = try connection.subscribe(endpoint.subject, queue: queue) { [startsOnDeliveryThread] message in
            // Before waiting for a free slot: the caller's patience counts from here.
            let received = ContinuousClock.now
            running.enter()
            let work: @Sendable () async -> Void = {
                await handle(message, received: received)
                running.leave()
            }
            if startsOnDeliveryThread { Task.immediate(operation: work) } else { Task(operation: work) }
        }
        counters.setServing(true)
        defer { counters.setServing(false) }
        logger.info("serving")
        // Cancelling run() drains the subscription rather than dropping it: the requests this replica has
        // already received are answered before it stops, not left to time out.
        await withTaskCancellationHandler {
            await subscription.finished()
        } onCancel: {
            counters.setServing(false)
            subscription.drain()
        }
        await running.allDone()
    }

    private func handle(_ message: NATSMessage, received: ContinuousClock.Instant) async {
        // Before anything is decoded or done: an answer goes to an inbox only, so a request (or a stream's
        // delivery) aimed at another subject changes nothing, whoever sent it.
        guard message.repliesToInbox, answersTo(message.replyTo) else {
            counters.recordDropped()
            logger.debug("request without an inbox to answer dropped")
            return
        }
        // A reply key that is no key is found before anything is done, not when the answer is sealed.
        let sealedFor = message.headers[ReplySeal.requestHeader]
        if let sealedFor, !ReplySeal.isPublicKey(sealedFor) {
            counters.recordDropped()
            logger.debug("request with a reply key that is no key dropped")
            return
        }
        let started = ContinuousClock.now
        // Anyone on the bus can set the header: an ID that is not sane is replaced, never logged.
        let sent = message.headers[RequestID.header]
        let id = RequestID.from(sent)
        // A caller that has given up gets no answer, and nothing is done for it.
        let deadline = RequestDeadline.from(message.headers[RequestDeadline.header], received: received)
        if let deadline, deadline <= ContinuousClock.now {
            counters.recordDropped()
            return
        }
        // A caller that asked for a sealed reply gets one: from this hop, or from the last (which gets its key).
        let bind = message.headers[ReplySeal.bindHeader] ?? ""
        let (reply, relayed) = await RequestID.$current.withValue(id) {
            await RequestDeadline.$current.withValue(deadline) { () async -> (Outcome, NATSMessage?) in
                let reply = await answer(message)
                guard case .forward(let subject, let payload) = reply else { return (reply, nil) }
                // The next hop answers this one, which passes the answer back unread: a hop that nobody serves
                // yet is asked again here for a few seconds (a failover), without redoing this hop's work.
                do {
                    return (reply, try await next.send(subject, payload, timeout: Self.handOnTimeout,
                                                       headers: sealedFor.map { [ReplySeal.requestHeader: $0, ReplySeal.bindHeader: bind] } ?? [:]))
                } catch let failure as ServiceFailure {
                    return (.answer(.failure(failure)), nil)
                } catch {
                    return (.answer(.failure(.internal)), nil)
                }
            }
        }
        // An answer the next hop did not seal, though the caller asked, is never passed on in the clear.
        var outcome = reply
        var passedBack = relayed
        if let relayed, sealedFor != nil, relayed.headers[ReplySeal.replyHeader] == nil {
            outcome = .answer(.failure(.internal))
            passedBack = nil
        }
        let elapsed = ContinuousClock.now - started
        counters.record(duration: elapsed, failure: outcome.failure)
        do {
            if let passedBack {
                handedBack?(passedBack)
                let sealed = passedBack.headers[ReplySeal.replyHeader].map { [ReplySeal.replyHeader: $0] } ?? [:]
                try connection.respond(to: message, passedBack.payload, headers: sealed)
            } else if case .answer(let envelope) = outcome {
                let payload = try MessageCoding.encode(envelope)
                var notes = envelope.data.flatMap { noting?($0) } ?? [:]
                if let sealedFor {
                    let sealed = try ReplySeal.responder.seal(payload, for: sealedFor, bind: bind)
                    notes.merge(sealed.headers) { _, seal in seal }
                    try connection.respond(to: message, sealed.payload, headers: notes)
                } else {
                    try connection.respond(to: message, payload, headers: notes)
                }
            }
        } catch {
            logger.warning("reply failed", [RequestID.metadataKey: id.value, "error": String(describing: error)])
        }
        // Built only when it is written: this runs for every request a service answers.
        guard logger.level <= .debug else { return }
        var fields = [RequestID.metadataKey: id.value, "request.outcome": outcome.failure?.code.rawValue ?? (outcome.isForward ? "handed-on" : "ok"),
                      "request.duration_ms": elapsed.millisecondsText]
        if sent != nil, sent != id.value { fields["request.id_refused"] = "true" }
        logger.debug("request handled", fields)
    }

    /// Whether `replyTo` is the inbox of an identity that may send this endpoint's requests (the table's
    /// ``BusSubjects/requests``), or the plain `_INBOX.` no production identity may subscribe under: a
    /// caller cannot have a service answer into another identity's pending requests.
    private func answersTo(_ replyTo: String?) -> Bool {
        guard let replyTo, let prefixes = replyPrefixes else { return true }
        return replyTo.hasPrefix("_INBOX.") || prefixes.contains { replyTo.hasPrefix($0) }
    }

    /// What the handler made of a request: an answer for the caller, or a request for the next hop.
    private enum Outcome {
        case answer(ServiceReply<Reply>)
        case forward(subject: String, payload: [UInt8])

        var failure: ServiceFailure? {
            if case .answer(let reply) = self { reply.error } else { nil }
        }

        var isForward: Bool {
            if case .forward = self { true } else { false }
        }
    }

    /// Decodes the request, runs the handler and turns what it threw into the failure to answer.
    private func answer(_ message: NATSMessage) async -> Outcome {
        let reply: ServiceReply<Reply>
        do {
            let request = try MessageCoding.decode(Request.self, from: message.payload)
            do {
                switch try await handler(request).step {
                case .answer(let answer): reply = .success(answer)
                case .forward(let subject, let payload): return .forward(subject: subject, payload: payload)
                }
            } catch let failure as ServiceFailure {
                reply = .failure(failure)
            } catch let convertible as any ServiceFailureConvertible {
                let failure = convertible.serviceFailure
                if failure.code == .internal || failure.code == .serviceUnavailable {
                    logger.error("request failed", ["error": String(describing: convertible)])
                }
                reply = .failure(failure)
            } catch {
                logger.error("request failed", ["error": String(describing: error)])
                reply = .failure(.internal)
            }
        } catch {
            reply = .failure(.invalidRequest("The message does not match the contract of \(endpoint.subject)."))
        }
        return .answer(reply)
    }
}

/// The handlers a responder has running: at most `limit` (``enter()`` blocks the delivery thread
/// beyond that), and a wait for the last to finish.
private final class RunningHandlers: Sendable {
    private let slots: DispatchSemaphore
    /// The handlers running, and the gate opened when the last of them finishes (made by the first waiter).
    private let state = Mutex<(running: Int, idle: Gate?)>((0, nil))

    init(limit: Int) {
        // Start at 0 and signal up to the limit: libdispatch traps when a semaphore is freed with a
        // count below the value it was created with.
        slots = DispatchSemaphore(value: 0)
        for _ in 0..<max(1, limit) { slots.signal() }
    }

    /// Called on the delivery thread (never a task), so it may block. Counted before it blocks, so that
    /// ``allDone()`` waits for a handler about to start too.
    func enter() {
        state.withLock { $0.running += 1 }
        slots.wait()
    }

    func leave() {
        let idle = state.withLock { state -> Gate? in
            state.running -= 1
            guard state.running == 0 else { return nil }
            defer { state.idle = nil }
            return state.idle
        }
        slots.signal()
        idle?.open()
    }

    /// Returns once no handler is running.
    func allDone() async {
        let idle = state.withLock { state -> Gate? in
            guard state.running > 0 else { return nil }
            if state.idle == nil { state.idle = Gate() }
            return state.idle
        }
        await idle?.opened()
    }
}
