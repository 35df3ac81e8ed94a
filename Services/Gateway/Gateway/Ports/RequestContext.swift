import Contracts
import HTTPServer
import Logging

/// What the gateway knows of one API request while it answers it: the request, its ID, a logger that
/// carries the ID, when it came, the route with its path parameters once matched and, once the Bearer
/// token was checked, the member. The middleware and the route share it.
struct RequestContext: Sendable {
    /// The HTTP request.
    let request: HTTPRequest
    /// The request's ID: the client's `X-Request-Id` when sane, else a new one; sent back and passed on.
    let id: RequestID
    /// The gateway's logger with `request.id` on every line.
    let logger: Logger
    /// When the gateway took the request: its duration in the metrics and the log counts from here.
    let started: ContinuousClock.Instant
    /// The route that the path and method matched (nil before the route match, and when none fits).
    var route: APIHandler.Route?
    /// The route's path parameters (`{sessionId}` → `["sessionId": ...]`).
    var parameters: [String: String] = [:]
    /// The methods the path takes when it matched a route under another method only (405's `Allow`).
    var allowedMethods: [String] = []
    /// The member of the request's access token, once an authenticated route has checked it.
    var member: AuthenticatedMember?

    /// A context for `request` with ID `id`, taken now; the logger gets the ID added.
    init(request: HTTPRequest, id: RequestID, logger: Logger) {
        self.started = .now
        self.request = request
        self.id = id
        self.logger = logger.with(id)
    }

    /// The `route` label of metrics and logs: the matched route's pattern, else `unmatched`.
    var routeLabel: String {
        route?.pattern ?? "unmatched"
    }

    /// The `method` label of metrics and logs: the request's method, or `OTHER` for one outside
    /// ``APIHandler/metricMethods`` (a client that makes up methods must not make up series).
    var methodLabel: String {
        APIHandler.metricMethods.contains(request.method) ? request.method : "OTHER"
    }

    /// The path parameter `name` (empty when the route declares none of that name).
    func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }
}

/// The member an access token speaks for, with the token's claims.
struct AuthenticatedMember: Sendable {
    /// The member ID (the token's `sub`), always above zero.
    let id: Int64
    /// The verified claims.
    let claims: AccessTokenClaims
    /// The access token itself: the member's proof, handed on with every request that acts on the member,
    /// for the service that owns the data to check.
    let token: String

    /// The member of `claims`, or 401 when its `sub` is not a member ID.
    init(_ claims: AccessTokenClaims, token: String) throws(ServiceFailure) {
        guard let id = Int64(claims.sub), id > 0 else { throw ServiceFailure(.unauthorized, "The access token is not valid.") }
        self.id = id
        self.claims = claims
        self.token = token
    }
}
