import Authentication
import Contracts
import Foundation
import HTTPAPI
import HTTPServer
import Logging
import Messaging
import Metrics
import Synchronization
import Runtime

/// Answers every HTTP request of the API (docs/api.md): routes it, validates it, fans it
/// out over NATS and maps the services' answers to HTTP.
final class APIHandler: Sendable {
    let configuration: GatewayConfiguration
    let logger: Logger
    let accessTokens: AccessTokenVerifier
    /// The rule for linking, unlinking and deleting: checked here before a provider is asked, and again by
    /// the member-service.
    let recentSignIn: RecentSignIn
    let metrics: MetricsRegistry
    /// Whether this gateway can serve (`/readyz`): NATS connected, key set and ended sessions loaded.
    let readiness = Readiness()
    /// The last `/readyz?services=all` answer, shared by everyone who asks within a second.
    let servicesReadinessAnswer = RecentAnswer()
    private let rateLimiter: RateLimiter?
    /// Warns once when one address sends most of the first rate-limited requests: a proxy not trusted.
    private let proxyCheck: UntrustedProxyCheck?
    private let clientBox = Mutex<(any ServiceCalling)?>(nil)

    init(configuration: GatewayConfiguration, logger: Logger, metrics: MetricsRegistry) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.recentSignIn = RecentSignIn(window: configuration.reauthenticationWindow)
        self.accessTokens = AccessTokenVerifier(issuer: configuration.tokenIssuer, audience: configuration.tokenAudience,
                                                leeway: configuration.clockSkew, maxCached: configuration.verifiedTokenCacheSize,
                                                maxEndedSessions: configuration.endedSessionCapacity, logger: logger, metrics: metrics)
        self.rateLimiter = configuration.rateLimitRPS > 0
            ? RateLimiter(rate: configuration.rateLimitRPS, burst: configuration.rateLimitBurst,
                          maxAddresses: configuration.rateLimitAddresses) : nil
        self.proxyCheck = configuration.rateLimitRPS > 0 ? UntrustedProxyCheck(logger: logger) : nil
        metrics.describeCounter("http_requests_total", "HTTP requests answered, by route, method and status.")
        metrics.describeHistogram("http_request_duration_seconds", "Time to answer an HTTP request, by route.")
        metrics.describeCounter("http_rate_limited_total", "Requests refused with 429 by the per-address rate limit.")
    }

    /// The services' client once NATS is connected (a ``ServiceClient``; a test's stand-in in process);
    /// nil before (requests that need a service get 503).
    var client: (any ServiceCalling)? {
        get { clientBox.withLock { $0 } }
        set { clientBox.withLock { $0 = newValue } }
    }

    /// One route: a method and path pattern (`{name}` matches one segment).
    struct Route: Sendable {
        let method: String
        let segments: [String]
        /// The path as declared, the `route` label of metrics: made once, read on every request.
        let pattern: String
        let handle: @Sendable (APIHandler, inout RequestContext) async throws(ServiceFailure) -> HTTPResponse

        init(method: String, segments: [String],
             handle: @escaping @Sendable (APIHandler, inout RequestContext) async throws(ServiceFailure) -> HTTPResponse) {
            self.method = method
            self.segments = segments
            self.pattern = "/" + segments.joined(separator: "/")
            self.handle = handle
        }
    }

    /// Every route; each feature declares its own in `APIHandler+<Feature>.swift`.
    static let routes: [Route] = authRoutes + memberRoutes + sessionRoutes + appleNotificationRoutes + operationRoutes

    /// Declares a route open to anyone; `handle` gets the request's context.
    static func route(_ method: String, _ path: String,
                      _ handle: @escaping @Sendable (APIHandler, RequestContext) async throws(ServiceFailure) -> HTTPResponse) -> Route {
        Route(method: method, segments: path.split(separator: "/").map(String.init)) { handler, context throws(ServiceFailure) in
            try await handle(handler, context)
        }
    }

    /// Declares a route for members: before `handle` runs, the Bearer token is checked (else 401) and its
    /// member put into the context. Every route that needs a member is declared with this.
    static func authenticated(
        _ method: String, _ path: String,
        _ handle: @escaping @Sendable (APIHandler, RequestContext, AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse
    ) -> Route {
        Route(method: method, segments: path.split(separator: "/").map(String.init)) { handler, context throws(ServiceFailure) in
            let member = try await handler.authenticate(context)
            context.member = member
            return try await handle(handler, context, member)
        }
    }

    /// The methods that get a `method` label of their own; any other is counted as `OTHER`.
    static let metricMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// What every request goes through before its route, outermost first (`Middleware+API.swift`); adding a
    /// concern is adding an entry. The observers sit outside every entry that may answer, so a refusal is
    /// logged, counted and carries the headers; a path in any other spelling than its route's reaches
    /// neither the route nor the rate limit it could dodge that way; a body announced too large is refused
    /// unread and costs no token.
    static let middleware: [Middleware] = [
        .logging, .metrics, .noStore, .requestID, .canonicalPath, .routeMatch, .bodyLimit, .rateLimit,
    ]

    /// Answers `request`: through ``middleware``, then its route. Every answer carries `X-Request-Id`.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var context = RequestContext(request: request, id: RequestID.from(request.header(RequestID.header)), logger: logger)
        return await respond(&context, from: 0)
    }

    /// Hands the request to the middleware entry at `index`, whose `next` is the entries after it; after
    /// the last, to the route.
    private func respond(_ context: inout RequestContext, from index: Int) async -> HTTPResponse {
        guard index < Self.middleware.count else { return await route(&context) }
        return await Self.middleware[index].handle(self, &context) { context in await respond(&context, from: index + 1) }
    }

    /// The end of the pipeline: the matched route, or the 404/405 answer when none fits.
    private func route(_ context: inout RequestContext) async -> HTTPResponse {
        guard let route = context.route else { return unmatched(context) }
        // The ID is the task's while the route runs: every service call passes it on, every log line carries it.
        return await RequestID.$current.withValue(context.id) {
            do throws(ServiceFailure) {
                return try await route.handle(self, &context)
            } catch {
                return .failure(error, maxAge: recentSignIn.maxAge)
            }
        }
    }

    /// The per-address limit on `/api/auth/*` and on linking an identity (which, like a login, asks a
    /// provider): nil when allowed, else seconds to wait.
    func rateLimit(_ request: HTTPRequest) -> Int? {
        guard let rateLimiter, request.path.hasPrefix("/api/auth/") || request.path.hasPrefix("/api/members/me/identities") else {
            return nil
        }
        let client = ClientAddress.client(of: request, trusting: configuration.trustedProxies, ipv6PrefixLength: configuration.rateLimitIPv6Prefix)
        proxyCheck?.observe(client)
        guard let retryAfter = rateLimiter.acquire(client) else { return nil }
        metrics.increment("http_rate_limited_total")
        return retryAfter
    }

    /// Puts the route for the context's request and its path parameters into the context; when none fits,
    /// the methods its path takes under other routes.
    func match(_ context: inout RequestContext) {
        let request = context.request
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var allowed: [String] = []
        for route in Self.routes where route.segments.count == segments.count {
            var parameters: [String: String] = [:]
            var matches = true
            for (pattern, segment) in zip(route.segments, segments) {
                if pattern.hasPrefix("{") {
                    parameters[String(pattern.dropFirst().dropLast())] = segment
                } else if pattern != segment {
                    matches = false
                    break
                }
            }
            guard matches else { continue }
            if route.method == request.method || (route.method == "GET" && request.method == "HEAD") {
                context.route = route
                context.parameters = parameters
                return
            }
            allowed.append(route.method)
        }
        context.allowedMethods = allowed
    }

    /// 405 with `Allow` when the path takes other methods, else 404.
    private func unmatched(_ context: RequestContext) -> HTTPResponse {
        guard !context.allowedMethods.isEmpty else { return .failure(ServiceFailure(.notFound, "No such endpoint.")) }
        let allowed = context.allowedMethods.joined(separator: ", ")
        var response = HTTPResponse.failure(ServiceFailure(.methodNotAllowed, "\(context.request.method) is not allowed here; use \(allowed)."))
        response.headers.append(("Allow", allowed))
        return response
    }

    /// The connected service client, or 503.
    func services() throws(ServiceFailure) -> any ServiceCalling {
        guard let client else { throw ServiceFailure.unavailable }
        return client
    }

    /// The member of the request's Bearer token, or 401; only ``authenticated(_:_:_:)`` calls it.
    private func authenticate(_ context: RequestContext) async throws(ServiceFailure) -> AuthenticatedMember {
        guard let header = context.request.header("authorization") else {
            throw ServiceFailure(.unauthorized, "Send the access token as Authorization: Bearer <token>.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw ServiceFailure(.unauthorized, "Send the access token as Authorization: Bearer <token>.")
        }
        let token = String(parts[1]).trimmingASCIISpaces()
        let claims = try await accessTokens.verify(token, client: client, timeout: configuration.serviceTimeout)
        return try AuthenticatedMember(claims, token: token)
    }
}
