import CMicroHTTPD
import Logging

#if canImport(Glibc)
import Glibc
#endif

// The C edge: libmicrohttpd calls these on its own threads. `cls` is the server, retained by `start()` and released
// by `stop()` after MHD_stop_daemon has joined MHD's threads, so it is alive in every callback.
extension HTTPServer {
    /// MHD's access handler: called after the headers, once per chunk of body, and once more at the end.
    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, conCls in
        // MHD calls the URI-log callback, which makes the context, before this one.
        guard let cls, let connection, let url, let method, let uploadDataSize, let conCls, let existing = conCls.pointee else {
            return .NO
        }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        let context = Unmanaged<RequestInProgress>.fromOpaque(existing).takeUnretainedValue()
        if !context.headersRead {
            context.headersRead = true
            // A body announced larger than the limit is answered now, unread: answering before the body makes MHD
            // close the connection afterwards, which such a client deserves. Any other request is answered at its
            // last call, which keeps the connection alive.
            guard server.announcesTooLargeBody(connection) else { return .YES }
            context.bodyTooLarge = true
            return server.dispatch(connection: connection, context: context, method: method, url: url)
        }
        if uploadDataSize.pointee > 0 {
            server.receive(UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee),
                           into: context, connection: connection)
            uploadDataSize.pointee = 0
            return .YES
        }
        if let pending = context.pending {
            // Called again after MHD_resume_connection: the handler has answered, or the server is stopping.
            guard let response = pending.take() else { return .NO }
            return server.queue(response, on: connection)
        }
        return server.dispatch(connection: connection, context: context, method: method, url: url)
    }

    /// MHD's URI-log callback, called once per request as soon as its request line is read: makes the request's
    /// context, which keeps the target as sent (the access handler gets it decoded), and becomes `*con_cls`.
    static let uriLog: cmhd_uri_log_callback = { _, uri, _ in
        let context = RequestInProgress(target: uri.map { String(cString: $0) } ?? "")
        return Unmanaged.passRetained(context).toOpaque()
    }

    /// MHD's request-completed callback: releases the request's context (after the answer, a timeout, a disconnect, or
    /// a request MHD refused itself).
    static let requestCompleted: MHD_RequestCompletedCallback = { _, _, conCls, _ in
        guard let conCls, let existing = conCls.pointee else { return }
        Unmanaged<RequestInProgress>.fromOpaque(existing).release()
        conCls.pointee = nil
    }

    /// MHD's error log, routed to the logger at debug level and kept to explain a failed start.
    static let daemonLog: MHD_LogCallback = { cls, format, arguments in
        guard let cls, let format, let arguments else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        let message = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buffer -> String in
            let written = vsnprintf(buffer.baseAddress, buffer.count, format, arguments)
            guard written >= 0 else { return "" }
            return String(cString: buffer.baseAddress!)
        }
        let trimmed = message.hasSuffix("\n") ? String(message.dropLast()) : message
        server.lastDaemonMessage.withLock { $0 = trimmed }
        server.logger.debug("libmicrohttpd said", ["mhd.message": trimmed])
    }

    /// True when the request's `Content-Length` is over `maxBodySize` (MHD has already refused one that is not a number).
    func announcesTooLargeBody(_ connection: OpaquePointer) -> Bool {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
              let length = UInt64(String(cString: value)) else { return false }
        return length > UInt64(configuration.maxBodySize)
    }

    /// Appends a chunk of body, or discards it once the body is over `maxBodySize`.
    func receive(_ chunk: UnsafeRawBufferPointer, into context: RequestInProgress, connection: OpaquePointer) {
        guard !context.bodyTooLarge else { return }
        let limit = configuration.maxBodySize
        guard context.body.count + chunk.count <= limit else {
            context.bodyTooLarge = true
            context.body = []
            return
        }
        if context.body.isEmpty, let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
           let expected = Int(String(cString: length)), expected > chunk.count {
            context.body.reserveCapacity(min(expected, limit))
        }
        context.body.append(contentsOf: chunk)
    }

    /// Last access-handler call of a request: suspends the connection and runs the handler in a task.
    func dispatch(connection: OpaquePointer, context: RequestInProgress,
                  method: UnsafePointer<CChar>, url: UnsafePointer<CChar>) -> MHD_Result {
        let request = HTTPRequest(
            method: String(cString: method),
            path: String(cString: url),
            target: context.target,
            query: Self.values(of: .GET_ARGUMENT_KIND, on: connection, lowercasingNames: false),
            lowercasedHeaders: Self.values(of: .HEADER_KIND, on: connection, lowercasingNames: true),
            body: context.body,
            bodyTooLarge: context.bodyTooLarge,
            remoteAddress: cmhd_connection_client_address(connection).map(SocketAddress.text(of:)) ?? "")
        context.body = []
        let pending = PendingResponse(connection: ConnectionHandle(pointer: connection))
        context.pending = pending

        MHD_suspend_connection(connection)
        let registered = state.withLock { state -> Bool in
            switch state.phase {
            case .starting, .running:
                state.suspended[ObjectIdentifier(pending)] = pending
                return true
            case .idle, .stopped:
                return false
            }
        }
        guard registered else {
            // stop() came first and cannot know this connection: resume it here (MHD's threads are still running,
            // since stop() joins them); with no response, the next call closes it.
            MHD_resume_connection(connection)
            return .YES
        }
        let handler = self.handler
        // Immediate: the handler starts on this MHD thread and leaves it at its first suspension (a call
        // to a service), instead of waking a thread of Swift's pool to start it. An answer made without
        // suspending (a refusal) resumes the connection from here, which MHD handles once this callback
        // returns. With an executor, the handler goes on there at its first suspension.
        Task.immediate(executorPreference: executor) {
            let response = await handler(request)
            self.complete(pending, with: response)
        }
        return .YES
    }

    /// Hands a handler's answer to its connection, unless `stop()` has already taken the connection back.
    func complete(_ pending: PendingResponse, with response: HTTPResponse) {
        pending.fulfil(response)
        let owned = state.withLock { state -> Bool in
            // Only a connection still registered is still suspended, hence alive; whoever unregisters it resumes it.
            guard state.suspended.removeValue(forKey: ObjectIdentifier(pending)) != nil else { return false }
            // Counted under the lock, so that stop() sees this resume and waits for it before freeing the daemon.
            resumesInFlight.add(1, ordering: .relaxed)
            return true
        }
        guard owned else { return }
        // Outside the lock: MHD_resume_connection takes MHD's own lock and wakes its thread (a syscall).
        MHD_resume_connection(pending.connection.pointer)
        resumesInFlight.subtract(1, ordering: .releasing)
    }

    /// Queues `response` on `connection`; MHD copies the body and adds `Content-Length`.
    func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            bytes.isEmpty ? .RESPMEM_PERSISTENT : .RESPMEM_MUST_COPY)
        }
        guard let created else {
            logger.error("HTTP server could not create a response", ["http.status": String(response.status)])
            return .NO
        }
        defer { MHD_destroy_response(created) }
        for (name, value) in response.headers where MHD_add_response_header(created, name, value) == .NO {
            logger.warning("HTTP server dropped a response header", ["http.header": name])
        }
        if draining.load(ordering: .acquiring) {
            _ = MHD_add_response_header(created, "Connection", "close")
        }
        var status = response.status
        if !(100...999).contains(status) {
            logger.warning("HTTP handler answered an invalid status", ["http.status": String(status)])
            status = 500
        }
        let queued = MHD_queue_response(connection, UInt32(status), created)
        if queued == .NO {
            logger.debug("HTTP server could not queue a response", ["http.status": String(status)])
        }
        return queued
    }

    /// Collects the connection's values of `kind` (headers or query arguments); the first of a repeated query
    /// argument wins, repeated headers are joined with ", ".
    static func values(of kind: MHD_ValueKind, on connection: OpaquePointer, lowercasingNames: Bool) -> [String: String] {
        var collector = ValueCollector(joinRepeats: lowercasingNames, lowercaseNames: lowercasingNames)
        let count = withUnsafeMutablePointer(to: &collector) { pointer in
            MHD_get_connection_values_n(connection, kind, { cls, _, key, keyLength, value, valueLength in
                guard let cls, let key else { return .YES }
                let collector = cls.assumingMemoryBound(to: ValueCollector.self)
                let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keyLength), as: UTF8.self)
                let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueLength), as: UTF8.self) }
                collector.pointee.add(name, text ?? "")
                return .YES
            }, pointer)
        }
        // Negative only for a NULL connection, which MHD never passes to the access handler.
        assert(count >= 0, "MHD_get_connection_values_n failed")
        return collector.values
    }
}

/// Accumulates key-value pairs from `MHD_get_connection_values_n`.
struct ValueCollector {
    let joinRepeats: Bool
    let lowercaseNames: Bool
    var values: [String: String] = [:]

    mutating func add(_ name: String, _ value: String) {
        let key = lowercaseNames ? name.lowercased() : name
        if let existing = values[key] {
            if joinRepeats {
                values[key] = existing + ", " + value
            }
        } else {
            values[key] = value
        }
    }
}
