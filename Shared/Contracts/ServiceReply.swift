/// The envelope of every NATS reply: exactly one of `data` and `error`.
public struct ServiceReply<Payload: Codable & Sendable>: Codable, Sendable {
    /// The contract version.
    public var v: Int
    /// The answer, on success.
    public var data: Payload?
    /// The failure, otherwise.
    public var error: ServiceFailure?

    /// A successful reply.
    public static func success(_ payload: Payload) -> ServiceReply { ServiceReply(v: 1, data: payload, error: nil) }
    /// A failed reply.
    public static func failure(_ failure: ServiceFailure) -> ServiceReply { ServiceReply(v: 1, data: nil, error: failure) }

    /// The payload, or the failure thrown.
    public func get() throws(ServiceFailure) -> Payload {
        if let data { return data }
        throw error ?? .internal
    }
}
