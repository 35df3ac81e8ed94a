import CCurl
import Foundation
import Logging
import Synchronization

/// The engine of an `HTTPClient`: one libcurl multi handle driven by one dedicated thread.
///
/// Callers hand requests over through a mutex-protected inbox and wake the thread with
/// `curl_multi_wakeup`; the thread adds them to the multi handle, runs `curl_multi_perform` /
/// `curl_multi_poll`, and resumes each caller's continuation when `curl_multi_info_read` reports it done.
final class TransferLoop: Sendable {
    private struct Inbox {
        var submitted: [PendingRequest] = []
        var cancelled: [PendingRequest] = []
        /// True while the worker is (about to be) in `curl_multi_poll`: the next submitter must wake it.
        var isPolling = false
        var isStopped = false
    }

    private let inbox = Mutex(Inbox())
    private let multi: Result<MultiHandle, HTTPClientError>
    private let configuration: HTTPClient.Configuration
    private let logger: Logger
    /// Idle easy handles kept for reuse; more than this are freed.
    private static let maxIdleHandles = 64
    /// The longest the worker sleeps in `curl_multi_poll` (libcurl shortens it for its own timers).
    private static let pollMilliseconds: Int32 = 1000

    init(configuration: HTTPClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        multi = Result { () throws(HTTPClientError) in
            try MultiHandle(maxConnectionsPerHost: configuration.maxConnectionsPerHost)
        }
        switch multi {
        case .success:
            Thread { [self] in
                Thread.current.name = "http-client"
                run()
            }.start()
        case .failure(let error):
            logger.error("http client could not start libcurl", ["error": error.description])
            inbox.withLock { $0.isStopped = true }
        }
    }

    /// Hands `pending` to the worker, or fails it at once when the client is stopped.
    func submit(_ pending: PendingRequest) {
        let (accepted, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.isStopped else { return (false, false) }
            inbox.submitted.append(pending)
            defer { inbox.isPolling = false }
            return (true, inbox.isPolling)
        }
        if !accepted {
            pending.finish(.failure(startError))
        } else if wake {
            wakeup()
        }
    }

    /// Asks the worker to drop `pending`'s transfer, whose caller was already resumed with `.cancelled`.
    func cancel(_ pending: PendingRequest) {
        let wake = inbox.withLock { inbox -> Bool in
            guard !inbox.isStopped else { return false }
            inbox.cancelled.append(pending)
            defer { inbox.isPolling = false }
            return inbox.isPolling
        }
        if wake { wakeup() }
    }

    /// Stops the worker: every request not yet answered fails with `.cancelled`. Safe to call more than once.
    func stop() {
        let wasStopped = inbox.withLock { inbox in
            defer { inbox.isStopped = true }
            return inbox.isStopped
        }
        if !wasStopped { wakeup() }
    }

    private var startError: HTTPClientError {
        switch multi {
        case .success: .cancelled
        case .failure(let error): error
        }
    }

    private func wakeup() {
        guard case .success(let multi) = multi else { return }
        let result = multi.wakeup()
        if result != CURLM_OK {
            logger.error("curl_multi_wakeup failed", ["curl.code": "\(result.rawValue)"])
        }
    }

    /// The worker thread's body: runs until `stop()`.
    private func run() {
        guard case .success(let multi) = multi else { return }
        var worker = Worker(multi: multi, configuration: configuration, logger: logger)
        var submitted: [PendingRequest] = []
        var cancelled: [PendingRequest] = []
        logger.debug("http client worker started")
        while true {
            let stopped = inbox.withLock { inbox in
                swap(&submitted, &inbox.submitted)
                swap(&cancelled, &inbox.cancelled)
                inbox.isPolling = true
                return inbox.isStopped
            }
            if stopped { break }
            for pending in submitted { worker.start(pending) }
            for pending in cancelled { worker.drop(pending) }
            submitted.removeAll(keepingCapacity: true)
            cancelled.removeAll(keepingCapacity: true)
            worker.performAndPoll(milliseconds: Self.pollMilliseconds)
        }
        // The last swap took every request submitted before stop(); submit() refuses later ones.
        for pending in submitted { pending.finish(.failure(.cancelled)) }
        worker.cancelAll()
        logger.debug("http client worker stopped")
    }
}

extension TransferLoop {
    /// The worker thread's own state: the transfers in flight and the idle easy handles. Never leaves that thread.
    private struct Worker {
        let multi: MultiHandle
        let configuration: HTTPClient.Configuration
        let logger: Logger
        var active: [ObjectIdentifier: Transfer] = [:]
        var idle: [EasyHandle] = []

        init(multi: MultiHandle, configuration: HTTPClient.Configuration, logger: Logger) {
            self.multi = multi
            self.configuration = configuration
            self.logger = logger
        }

        /// Configures a pooled easy handle for `pending` and adds it to the multi handle.
        mutating func start(_ pending: PendingRequest) {
            // Its caller may have been cancelled between handing it over and now.
            guard !pending.isFinished else { return }
            let easy: EasyHandle
            if let reused = idle.popLast() {
                easy = reused
            } else {
                do throws(HTTPClientError) {
                    easy = try EasyHandle()
                } catch {
                    pending.finish(.failure(error))
                    return
                }
            }
            let transfer = Transfer(pending: pending, easy: easy, configuration: configuration)
            do {
                try transfer.configure()
                try MultiHandle.check("curl_multi_add_handle", curl_multi_add_handle(multi.raw, easy.raw))
            } catch {
                recycle(easy)
                pending.finish(.failure(error))
                return
            }
            active[ObjectIdentifier(pending)] = transfer
        }

        /// Removes `pending`'s transfer, if it is still running (its caller has already been answered).
        mutating func drop(_ pending: PendingRequest) {
            guard let transfer = active.removeValue(forKey: ObjectIdentifier(pending)) else { return }
            remove(transfer)
        }

        /// Fails every running transfer with `.cancelled` and frees the easy handles.
        mutating func cancelAll() {
            for transfer in active.values {
                remove(transfer)
                transfer.pending.finish(.failure(.cancelled))
            }
            active.removeAll()
            idle.removeAll()
        }

        /// Lets libcurl make progress, completes finished transfers, then waits for sockets, timers or a wakeup.
        mutating func performAndPoll(milliseconds: Int32) {
            var running: Int32 = 0
            let performed = curl_multi_perform(multi.raw, &running)
            if performed != CURLM_OK {
                logger.error("curl_multi_perform failed", ["curl.code": "\(performed.rawValue)"])
            }
            completeFinished()
            let polled = curl_multi_poll(multi.raw, nil, 0, milliseconds, nil)
            if polled != CURLM_OK {
                logger.error("curl_multi_poll failed", ["curl.code": "\(polled.rawValue)"])
            }
        }

        private mutating func completeFinished() {
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi.raw, &queued) {
                guard message.pointee.msg == CURLMSG_DONE else { continue }
                // Read everything from the message first: removing the handle invalidates it.
                let handle = message.pointee.easy_handle
                let result = message.pointee.data.result
                var context: UnsafeMutableRawPointer?
                let info = ccurl_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &context)
                guard info == CURLE_OK, let context else {
                    logger.error("finished transfer without its context", ["curl.code": "\(info.rawValue)"])
                    _ = curl_multi_remove_handle(multi.raw, handle)
                    continue
                }
                let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                active.removeValue(forKey: ObjectIdentifier(transfer.pending))
                let outcome = transfer.outcome(of: result)
                remove(transfer)
                transfer.pending.finish(outcome)
            }
        }

        private mutating func remove(_ transfer: Transfer) {
            let removed = curl_multi_remove_handle(multi.raw, transfer.easy.raw)
            if removed == CURLM_OK {
                recycle(transfer.easy)
            } else {
                // A handle libcurl may still hold is not reused; freeing it is left to the transfer's last reference.
                logger.error("curl_multi_remove_handle failed", ["curl.code": "\(removed.rawValue)"])
            }
        }

        private mutating func recycle(_ easy: EasyHandle) {
            if idle.count < TransferLoop.maxIdleHandles {
                idle.append(easy)
            }
        }
    }
}
