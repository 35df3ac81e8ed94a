import CNats
import Foundation

extension NATSConnection {
    /// Creates the options, connects (blocking: call it on the blocking queue), creates the JetStream
    /// context and the request inbox subscription.
    static func open(_ configuration: Configuration, servers: [String], events: ConnectionEvents) throws -> ConnectionHandle {
        NATSLibrary.opened
        var options: OpaquePointer?
        try check(natsOptions_Create(&options), "create options")
        defer { natsOptions_Destroy(options) }

        let urls = servers.map { strdup($0) }
        defer { urls.forEach { free($0) } }
        guard !urls.contains(nil) else { throw NATSError(code: .invalidArgument, detail: "out of memory copying URLs") }
        var urlList = urls.map { UnsafePointer($0) }
        try check(natsOptions_SetServers(options, &urlList, Int32(urlList.count)), "set servers")
        try check(natsOptions_SetNoRandomize(options, false), "set randomize")
        try check(natsOptions_SetName(options, configuration.name), "set name")
        try check(natsOptions_SetAllowReconnect(options, true), "allow reconnect")
        try check(natsOptions_SetMaxReconnect(options, Int32(clamping: configuration.maxReconnect)), "set max reconnect")
        try check(natsOptions_SetReconnectWait(options, max(1, configuration.reconnectWait.milliseconds)), "set reconnect wait")
        try check(natsOptions_SetPingInterval(options, max(1, configuration.pingInterval.milliseconds)), "set ping interval")
        try check(natsOptions_SetMaxPingsOut(options, Int32(clamping: configuration.maxPingsOut)), "set max pings out")
        try check(natsOptions_SetTimeout(options, max(1, configuration.connectTimeout.milliseconds)), "set connect timeout")
        try check(natsOptions_SetMaxPendingMsgs(options, Int32(clamping: configuration.pendingMessageLimit)), "set max pending")
        try applyAccess(configuration.access, to: options)
        // Without SendAsap cnats delays each publish from a callback by ~1 ms (INTEROP.md pitfall 6).
        try check(natsOptions_SetSendAsap(options, true), "set send asap")

        // One +1 reference for cnats; the closed callback (the last one cnats makes) releases it.
        let eventsPointer = Unmanaged.passRetained(events).toOpaque()
        try check(natsOptions_SetClosedCB(options, { _, closure in
            Unmanaged<ConnectionEvents>.fromOpaque(closure!).takeRetainedValue().closed()
        }, eventsPointer), "set closed callback")
        try check(natsOptions_SetDisconnectedCB(options, { connection, closure in
            let status = natsConnection_Status(connection)
            let closing = status == NATS_CONN_STATUS_CLOSED || status == NATS_CONN_STATUS_DRAINING_PUBS
                || status == NATS_CONN_STATUS_DRAINING_SUBS
            Unmanaged<ConnectionEvents>.fromOpaque(closure!).takeUnretainedValue().disconnected(closing: closing)
        }, eventsPointer), "set disconnected callback")
        try check(natsOptions_SetReconnectedCB(options, { connection, closure in
            var buffer = [CChar](repeating: 0, count: 256)
            let url = buffer.withUnsafeMutableBufferPointer { buffer in
                natsConnection_GetConnectedUrl(connection, buffer.baseAddress, buffer.count) == NATS_OK
                    ? String(cString: buffer.baseAddress!) : nil
            }
            Unmanaged<ConnectionEvents>.fromOpaque(closure!).takeUnretainedValue().reconnected(url: url)
        }, eventsPointer), "set reconnected callback")
        try check(natsOptions_SetErrorHandler(options, { _, subscription, status, closure in
            let subject = subscription.flatMap { natsSubscription_GetSubject($0) }.map { String(cString: $0) }
            Unmanaged<ConnectionEvents>.fromOpaque(closure!).takeUnretainedValue().asyncError(status: status, subject: subject)
        }, eventsPointer), "set error handler")

        var connection: OpaquePointer?
        var status = natsConnection_Connect(&connection, options)
        // cnats 3.4.1 (Debian 12) sends no signature when the nonce's Ed25519 signature begins with a
        // zero byte (1 in 256; fixed upstream in nats.c #705), and the server refuses the connect. A
        // new connection gets a new nonce, so a few more tries make that 1 in billions.
        var attempts = 1
        while status == NATS_CONNECTION_AUTH_FAILED, configuration.access.nkey != nil, attempts < 4 {
            attempts += 1
            status = natsConnection_Connect(&connection, options)
        }
        guard status == NATS_OK, let connection else {
            // A connection that never opened never calls the closed callback.
            Unmanaged<ConnectionEvents>.fromOpaque(eventsPointer).release()
            let cause = NATSError(status: status, operation: "connect to \(servers.joined(separator: ","))")
            throw NATSError(code: .connectionFailed, detail: cause.detail)
        }
        do {
            var jetStream: OpaquePointer?
            try check(natsConnection_JetStream(&jetStream, connection, nil), "create JetStream context")
            do {
                let inbox = try subscribeInbox(connection, events.multiplexer)
                return ConnectionHandle(connection: connection, jetStream: jetStream!, inbox: inbox)
            } catch {
                jsCtx_Destroy(jetStream)
                throw error
            }
        } catch {
            natsConnection_Destroy(connection)
            throw error
        }
    }

    /// Sets the nkey, the inbox prefix and TLS. cnats reads the seed file at each connect, signs the
    /// server's nonce and wipes the seed from memory.
    private static func applyAccess(_ access: Access, to options: OpaquePointer?) throws {
        try check(natsOptions_SetCustomInboxPrefix(options, access.inboxPrefix), "set inbox prefix")
        if let nkey = access.nkey {
            try check(natsOptions_SetNKeyFromSeed(options, nkey.publicKey, nkey.seedFile), "set nkey")
        }
        guard let tls = access.tls else { return }
        try check(natsOptions_SetSecure(options, true), "require TLS")
        if let caFile = tls.caFile {
            try check(natsOptions_LoadCATrustedCertificates(options, caFile), "load NATS_TLS_CA_FILE")
        }
        if let certificateFile = tls.certificateFile, let keyFile = tls.keyFile {
            try check(natsOptions_LoadCertificatesChain(options, certificateFile, keyFile), "load NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE")
        }
    }

    /// Subscribes the multiplexer to `<inbox prefix>.<nuid>.*`, the one subscription all replies arrive on.
    private static func subscribeInbox(_ connection: OpaquePointer, _ multiplexer: RequestMultiplexer) throws -> OpaquePointer {
        var subscription: OpaquePointer?
        // One +1 reference for the subscription; its completion callback (after the last message) releases it.
        let pointer = Unmanaged.passRetained(multiplexer).toOpaque()
        let status = natsConnection_Subscribe(&subscription, connection, multiplexer.wildcardSubject, { _, _, message, closure in
            Unmanaged<RequestMultiplexer>.fromOpaque(closure!).takeUnretainedValue().deliver(message!)
            natsMsg_Destroy(message)
        }, pointer)
        guard status == NATS_OK, let subscription else {
            Unmanaged<RequestMultiplexer>.fromOpaque(pointer).release()
            throw NATSError(status: status, operation: "subscribe to the reply inbox")
        }
        let completion = natsSubscription_SetOnCompleteCB(subscription, { closure in
            Unmanaged<RequestMultiplexer>.fromOpaque(closure!).release()
        }, pointer)
        guard completion == NATS_OK else {
            // Closed already: keep the multiplexer alive (a few bytes) rather than risk a late callback.
            natsSubscription_Destroy(subscription)
            throw NATSError(status: completion, operation: "set inbox completion callback")
        }
        return subscription
    }
}
