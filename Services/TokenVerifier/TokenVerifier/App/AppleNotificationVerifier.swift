import Contracts
import Foundation
import JSON

/// Proves Apple's server-to-server notifications: a JWS signed with Apple's identity-token keys,
/// `iss` Apple's, `aud` one of our Apple client IDs, `iat` not in the future nor older than
/// ``AppleNotification/maxAge``, `exp` (when present) not passed, and a `jti` (the member-service
/// lets each take effect once); the event is the `events` claim, a JSON object sent as a string.
struct AppleNotificationVerifier: Sendable {
    let oidc: OIDCVerifier

    /// The event the notification carries, or `INVALID_PROVIDER_TOKEN`.
    func verify(_ request: AppleNotificationRequest, now: Date = Date()) async throws(ServiceFailure) -> AppleNotification {
        let claims = try await oidc.signedClaims(token: request.payload)
        let configuration = oidc.configuration
        let current = Int64(now.timeIntervalSince1970)
        let leeway = oidc.clockSkew.components.seconds
        guard let issuer = claims.iss, configuration.issuers.contains(issuer) else { throw Self.invalid("issuer") }
        guard claims.aud.contains(where: configuration.clientIDs.contains) else { throw Self.invalid("audience") }
        guard let issuedAt = claims.iat, issuedAt <= current + leeway,
              issuedAt >= current - AppleNotification.maxAge.components.seconds else { throw Self.invalid("issue time") }
        if let expiry = claims.exp, current >= expiry + leeway { throw Self.invalid("expiry") }
        guard case .string(let jti)? = claims.raw["jti"], (1...255).contains(jti.utf8.count) else { throw Self.invalid("jti") }
        guard case .string(let text)? = claims.raw["events"],
              let event = try? MessageCoding.decode(Event.self, from: Array(text.utf8)),
              !event.type.isEmpty, !event.sub.isEmpty else {
            throw Self.invalid("events claim")
        }
        return AppleNotification(type: event.type, subject: event.sub, email: event.email,
                                 isPrivateEmail: event.is_private_email?.value, eventTime: event.event_time.map(Self.date),
                                 jti: jti, issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)))
    }

    /// Apple documents `event_time` in seconds and has sent milliseconds; both are read.
    private static func date(_ value: Int64) -> Date {
        Date(timeIntervalSince1970: value > 100_000_000_000 ? Double(value) / 1000 : Double(value))
    }

    private static func invalid(_ what: String) -> ServiceFailure {
        ServiceFailure(.invalidProviderToken, "The Apple notification is not valid (\(what)).")
    }

    /// The `events` object.
    private struct Event: Decodable {
        var type: String
        var sub: String
        var email: String?
        var is_private_email: FlexibleBool?
        var event_time: Int64?
    }

    /// A boolean Apple sends as `true` or `"true"`.
    private struct FlexibleBool: Decodable {
        var value: Bool

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) {
                value = bool
            } else {
                switch try container.decode(String.self) {
                case "true": value = true
                case "false": value = false
                default: throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a boolean")
                }
            }
        }
    }
}
