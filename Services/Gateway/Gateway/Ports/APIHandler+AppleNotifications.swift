import Contracts
import HTTPServer

extension APIHandler {
    /// Apple's server-to-server notifications.
    static let appleNotificationRoutes: [Route] = [
        route("POST", "/api/auth/apple/notifications") { handler, context throws(ServiceFailure) in
            try await handler.appleNotification(context)
        },
    ]

    /// The token-verifier proves the JWS (a bad one is 401 `INVALID_PROVIDER_TOKEN`), then the
    /// member-service acts on the event, then the issuer ends the sessions of what it ended. Every
    /// step is idempotent (a notification handled before answers its first outcome), so each is
    /// retried once, and Apple, which retries an unanswered notification, may send it again too.
    func appleNotification(_ context: RequestContext) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(AppleNotificationBody.self, from: context.request)
        try Field.required(body.payload, "payload", maxBytes: Limits.token)
        let services = try services()
        let event = try await services.call(Endpoints.verifyAppleNotification, AppleNotificationRequest(payload: body.payload),
                                            timeout: configuration.serviceTimeout, retries: 1)
        let outcome = try await services.call(Endpoints.memberAppleNotification, event, timeout: configuration.serviceTimeout,
                                              retries: 1)
        if let memberId = outcome.memberId {
            if outcome.memberDeleted {
                try await memberDeleted(memberId)
            } else if outcome.identityEnded {
                try await identityEnded(memberId, .apple)
            }
        }
        return .data(AppleNotificationResponse(handled: true))
    }
}
