import CMicroHTTPD
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: MHD's epoll threads read requests, an async handler answers each one.
///
/// Connections are suspended while their handler runs, so a slow handler holds no thread. The server is a
/// `Service`-shaped type: `run()` serves until its task is cancelled. A started server keeps itself alive
/// (MHD holds a reference) until `stop()` or the end of `run()`.
public final class HTTPServer: Sendable {
    /// Answers one request; it cannot throw, so every request gets a response.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    /// Where the server is in its life; it goes forward only.
    enum Phase {
        case idle
        case starting
        case running(DaemonHandle)
        case stopped
    }

    /// Everything that MHD's threads, handler tasks and `stop()` share, behind one lock.
    struct State {
        var phase = Phase.idle
        var port = 0
        /// Connections suspended while their handler runs, keyed by their `PendingResponse`.
        var suspended: [ObjectIdentifier: PendingResponse] = [:]
        /// The listening socket handed back by `MHD_quiesce_daemon`, closed after the daemon stops.
        var quiescedSocket: Int32?
    }

    let configuration: Configuration
    let logger: Logger
    let handler: Handler
    /// Where handlers run; nil: Swift's cooperative pool.
    let executor: (any TaskExecutor)?
    let state = Mutex(State())
    /// Resumes started by handler tasks and not yet returned; `stop()` waits for zero before freeing the daemon.
    let resumesInFlight = Atomic<Int>(0)
    /// Set once `run()` is cancelled: every answer from then on closes its connection.
    let draining = Atomic<Bool>(false)
    /// The last message libmicrohttpd logged, kept to explain a failed start.
    let lastDaemonMessage = Mutex<String?>(nil)

    /// Creates a server; nothing listens until `start()` or `run()`. With `executor`, every handler prefers it
    /// (`Task(executorPreference:)`): its nonisolated code, and default actors it calls, run there instead of
    /// on Swift's cooperative pool; an actor with an executor of its own keeps that one.
    public init(configuration: Configuration, logger: Logger, executor: (any TaskExecutor)? = nil, handler: @escaping Handler) {
        self.configuration = configuration
        self.logger = logger
        self.executor = executor
        self.handler = handler
    }

    /// The bound port (the configured one, or the one picked for port 0); 0 before `start()`.
    public var port: Int {
        state.withLock { $0.port }
    }

    /// Binds the port and starts MHD's threads; throws `HTTPServerError` when the port is taken or the configuration is wrong.
    public func start() throws {
        try configuration.validate()
        guard let address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw HTTPServerError.invalidHost(configuration.host)
        }
        try state.withLock { state throws(HTTPServerError) in
            switch state.phase {
            case .idle: state.phase = .starting
            case .starting, .running: throw .alreadyStarted
            case .stopped: throw .stopped
            }
        }

        // The lock is not held here: MHD's threads may already call back into the server during the start.
        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 {
            flags |= (configuration.host == "::" ? MHD_USE_DUAL_STACK : MHD_USE_IPv6).rawValue
        }
        // MHD's reference to the server, released once MHD_stop_daemon has joined its threads.
        let retained = Unmanaged.passRetained(self)
        let context = retained.toOpaque()
        lastDaemonMessage.withLock { $0 = nil }
        let daemon = address.withSockaddr { sockaddr in
            cmhd_start_daemon(flags, sockaddr,
                              Self.accessHandler, context,
                              Self.requestCompleted, context,
                              Self.uriLog, context,
                              Self.daemonLog, context,
                              UInt32(configuration.connectionLimit), UInt32(configuration.perAddressConnectionLimit),
                              configuration.timeoutSeconds, UInt32(configuration.threads),
                              configuration.reusePort ? 1 : 0)
        }
        guard let daemon else {
            retained.release()
            let reason = lastDaemonMessage.withLock { $0 }
            state.withLock { state in
                if case .starting = state.phase { state.phase = .idle }
            }
            if let reason, reason.lowercased().contains("bind") {
                throw HTTPServerError.bindFailed(host: configuration.host, port: configuration.port, reason: reason)
            }
            throw HTTPServerError.startFailed(reason: reason)
        }
        let boundPort = configuration.port == 0 ? Int(cmhd_daemon_bind_port(daemon)) : configuration.port
        let stoppedMeanwhile = state.withLock { state -> Bool in
            guard case .starting = state.phase else { return true }
            state.phase = .running(DaemonHandle(pointer: daemon))
            state.port = boundPort
            return false
        }
        if stoppedMeanwhile {
            MHD_stop_daemon(daemon)
            retained.release()
            throw HTTPServerError.stopped
        }
        logger.info("HTTP server listening", ["http.host": configuration.host, "http.port": String(boundPort)])
    }

    /// Starts the server if it is not started, serves until the task is cancelled, then stops.
    ///
    /// On cancellation it stops accepting, gives running handlers up to `shutdownGracePeriod` to answer, then stops.
    public func run() async throws {
        let phase = state.withLock { $0.phase }
        switch phase {
        case .idle: try start()
        case .starting, .running: break
        case .stopped: throw HTTPServerError.stopped
        }
        while !Task.isCancelled {
            // Sleeping holds no thread; cancellation ends the sleep at once.
            try? await Task.sleep(for: .seconds(3600))
        }
        await drain()
        stop()
    }

    /// Stops accepting, finishes answers already computed, aborts handlers still running, and joins MHD's threads.
    ///
    /// Idempotent; the server cannot be started again afterwards.
    public func stop() {
        let (daemon, quiescedSocket, suspended) = state.withLock { state in
            let previous = state.phase
            state.phase = .stopped
            let suspended = Array(state.suspended.values)
            state.suspended.removeAll()
            let socket = state.quiescedSocket
            state.quiescedSocket = nil
            guard case .running(let daemon) = previous else { return (DaemonHandle?.none, socket, suspended) }
            return (daemon, socket, suspended)
        }
        // Resumed here, a connection whose handler has not answered is closed on its next access-handler call;
        // MHD_stop_daemon must never find a connection still suspended.
        for pending in suspended {
            MHD_resume_connection(pending.connection.pointer)
        }
        // A handler task that unregistered its connection before us may still be inside MHD_resume_connection.
        while resumesInFlight.load(ordering: .acquiring) > 0 {
            sched_yield()
        }
        guard let daemon else { return }
        MHD_stop_daemon(daemon.pointer)
        // No MHD thread is left to call back: drop the reference start() gave MHD.
        Unmanaged.passUnretained(self).release()
        if let quiescedSocket {
            // MHD's threads may use the quiesced socket until MHD_stop_daemon returns; now it is ours to close.
            if close(quiescedSocket) != 0 {
                logger.warning("HTTP server could not close its listening socket", ["error.errno": String(errno)])
            }
        }
        logger.info("HTTP server stopped", ["http.port": String(port)])
    }

    /// The connections open now; 0 once the daemon is stopped (never asked of a freed daemon).
    private func openConnections() -> UInt32 {
        state.withLock { state in
            guard case .running(let daemon) = state.phase else { return 0 }
            return cmhd_daemon_connections(daemon.pointer)
        }
    }

    /// Stops accepting new connections, answers every request still to come on the open ones with
    /// `Connection: close`, and waits (without blocking a thread) until no connection is left, or until the
    /// grace period is over. A keep-alive client is so told to reconnect, to another replica, after its
    /// answer, instead of finding its connection closed under a request.
    private func drain() async {
        draining.store(true, ordering: .releasing)
        state.withLock { state in
            guard case .running(let daemon) = state.phase, state.quiescedSocket == nil else { return }
            let socket = MHD_quiesce_daemon(daemon.pointer)
            if socket >= 0 {
                state.quiescedSocket = socket
                // Leaves the port's SO_REUSEPORT group now: new connections go to the other processes on the
                // port instead of waiting in this socket's queue until it closes. The descriptor stays open
                // until MHD_stop_daemon, as MHD requires.
                shutdown(socket, Int32(SHUT_RDWR))
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: configuration.shutdownGracePeriod)
        while clock.now < deadline {
            let running = state.withLock { $0.suspended.count }
            if running == 0, openConnections() == 0 { return }
            // This task is cancelled, so its own sleep would return at once: sleep in a detached task instead.
            await Task.detached { try? await Task.sleep(for: .milliseconds(10)) }.value
        }
        let running = state.withLock { $0.suspended.count }
        let open = openConnections()
        // Idle keep-alive connections past the grace period are closed, as HTTP allows; a running handler is aborted.
        if running > 0 {
            logger.warning("HTTP server stopping with handlers still running", ["http.handlers": String(running)])
        } else {
            logger.info("HTTP server closing idle connections", ["http.connections": String(open)])
        }
    }
}
