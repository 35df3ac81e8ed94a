import CNats

extension NATSError {
    /// Maps a failed cnats status to an error, with the library's last error text as detail.
    init(status: natsStatus, operation: String, jetStreamError: jsErrCode = jsErrCode(0)) {
        let text = natsStatus_GetText(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
        var lastError = text
        if let last = nats_GetLastError(nil), last.pointee != 0 {
            lastError = String(cString: last)
        }
        let detail = "\(operation): \(lastError)"
        if jetStreamError.rawValue != 0 {
            self.init(code: .jetStream, detail: detail, jetStreamErrorCode: Int(jetStreamError.rawValue))
            return
        }
        switch status {
        case NATS_TIMEOUT: self.init(code: .timeout, detail: detail)
        case NATS_NO_RESPONDERS: self.init(code: .noResponders, detail: detail)
        case NATS_CONNECTION_CLOSED: self.init(code: .connectionClosed, detail: detail)
        case NATS_CONNECTION_DISCONNECTED, NATS_NOT_YET_CONNECTED: self.init(code: .notConnected, detail: detail)
        case NATS_NO_SERVER: self.init(code: .connectionFailed, detail: detail)
        case NATS_INVALID_SUBJECT, NATS_INVALID_QUEUE_NAME: self.init(code: .invalidSubject, detail: detail)
        case NATS_INVALID_ARG, NATS_INVALID_TIMEOUT, NATS_MAX_PAYLOAD: self.init(code: .invalidArgument, detail: detail)
        default: self.init(code: .protocolError, detail: detail)
        }
    }
}

/// Throws a ``NATSError`` unless `status` is `NATS_OK`; every cnats call goes through this or `checkJS`.
@inline(__always)
func check(_ status: natsStatus, _ operation: @autoclosure () -> String) throws {
    guard status == NATS_OK else { throw NATSError(status: status, operation: operation()) }
}

/// Like ``check(_:_:)`` for JetStream calls, which also report the API's `err_code`.
@inline(__always)
func checkJS(_ status: natsStatus, _ errorCode: jsErrCode, _ operation: @autoclosure () -> String) throws {
    guard status == NATS_OK else { throw NATSError(status: status, operation: operation(), jetStreamError: errorCode) }
}
