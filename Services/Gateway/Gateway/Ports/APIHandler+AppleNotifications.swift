import Contracts
import HTTPAPI
import HTTPServer
import Rules

extension APIHandler {
    /// Apple's server-to-server notifications.
    static let appleNotificationRoutes: [Route] = [
        route("POST", "/api/auth/apple/notifications") { handler, context throws(ServiceFailure) in
            try await handler.appleNotification(context)
        },
    ]

    /// One request down a chain: the token-verifier proves the JWS (a bad one is 401
    /// `INVALID_PROVIDER_TOKEN`) and hands the event to the member-service, which acts on it and has the
    /// issuer end the sessions of what it ended, then answers here. Every step is idempotent (a
    /// notification handled before answers its first outcome), so the chain is retried once, and Apple,
    /// which retries an unanswered notification, may send it again too.
    func appleNotification(_ context: RequestContext) async throws(ServiceFailure) -> HTTPResponse {
        let body = try RequestBody.decode(AppleNotificationBody.self, from: context.request)
        try Field.required(body.payload, "payload", maxBytes: FieldLimits.token)
        let outcome = try await services().call(Endpoints.verifyAppleNotification, AppleNotificationRequest(payload: body.payload),
                                                timeout: configuration.serviceTimeout, retries: 1)
        sessionsEnded(outcome.sessionsEnded)
        return .data(AppleNotificationResponse(handled: true))
    }
}
