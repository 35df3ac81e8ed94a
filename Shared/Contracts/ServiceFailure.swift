/// A failure a service reports in its reply: a code the gateway maps to an HTTP status and a
/// message the caller can act on (never internal details).
public struct ServiceFailure: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for machines.
    public let code: ErrorCode
    /// What the caller can fix, for people.
    public let message: String
    /// Which case of `code` it is, for machines, where the code has several (`nonceUsed` of
    /// `INVALID_PROVIDER_TOKEN`, ``NonceRefusal``); nil for most.
    public let reason: String?

    /// Creates a failure.
    public init(_ code: ErrorCode, _ message: String, reason: String? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
    }

    public var description: String { "\(code): \(message)" }

    /// A missing or ill-typed field, naming it.
    public static func invalidRequest(_ message: String) -> ServiceFailure { ServiceFailure(.invalidRequest, message) }
    /// An internal failure; the message stays generic.
    public static let `internal` = ServiceFailure(.internal, "An internal error occurred.")
    /// An admin suspended the member: no login, link, refresh or change until the suspension is lifted (403
    /// `MEMBER_SUSPENDED`), whichever service refuses it (the member-service, or the token-issuer at the last hop).
    public static let memberSuspended = ServiceFailure(.memberSuspended, "This account is suspended; contact support.")
    /// A dependency (database, provider) is down.
    public static let unavailable = ServiceFailure(.serviceUnavailable, "The service is temporarily unavailable; try again shortly.")
}

/// An error of a lower layer (database, HTTP client) that knows which service failure it is,
/// so a responder can answer with it (an unreachable database is a 503, not a 500).
public protocol ServiceFailureConvertible: Error {
    /// The failure to answer with.
    var serviceFailure: ServiceFailure { get }
}
