extension NATSConnection {
    /// Publishes `payload` to `subject` with `replyTo` as its reply subject, for a request that
    /// gathers several answers on a subscription of the caller's own (service discovery's
    /// `$SRV.PING` is answered by every replica). For one answer, use `request`.
    public func publish(_ subject: String, replyTo: String, _ payload: [UInt8], headers: [String: String] = [:]) throws {
        try Subject.validate(subject, wildcards: false)
        try Subject.validate(replyTo, wildcards: false)
        try replyTo.withCString { reply in
            try publish(subject, reply: reply, payload, headers: headers)
        }
    }
}
