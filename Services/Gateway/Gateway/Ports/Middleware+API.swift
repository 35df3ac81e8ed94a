import Contracts
import HTTPAPI
import HTTPServer
import Logging
import Runtime

/// The entries of ``APIHandler/middleware``, in its order.
extension Middleware {
    /// Logs `request failed` (warning) for a 5xx answer and, at debug level, `request answered` for every one.
    static let logging = Middleware("logging") { handler, context, next in
        let response = await next(&context)
        if response.status >= 500 {
            context.logger.warning("request failed", ["http.path": context.routeLabel, "http.status": String(response.status)])
        }
        // Built only when it is written: this runs for every request.
        guard handler.logger.level <= .debug else { return response }
        var fields = ["http.method": context.methodLabel, "http.path": context.routeLabel, "http.status": String(response.status),
                      "request.duration_ms": (ContinuousClock.now - context.started).millisecondsText]
        if let member = context.member { fields["member.id"] = String(member.id) }
        context.logger.debug("request answered", fields)
        return response
    }

    /// Counts every answer (`http_requests_total`) and times it (`http_request_duration_seconds`), by route.
    static let metrics = Middleware("metrics") { handler, context, next in
        let response = await next(&context)
        let route = context.routeLabel
        handler.metrics.increment("http_requests_total", ["route": route, "method": context.methodLabel, "status": String(response.status)])
        handler.metrics.observe("http_request_duration_seconds", ["route": route], (ContinuousClock.now - context.started).timeInterval)
        return response
    }

    /// `Cache-Control: no-store` on every `/api/` answer that sets no cache policy of its own.
    static let noStore = Middleware("no-store") { _, context, next in
        var response = await next(&context)
        // API answers carry tokens or personal data: no cache (a proxy's, a browser's) may keep them.
        if context.request.path.hasPrefix("/api/"), !response.headers.contains(where: { $0.0.lowercased() == "cache-control" }) {
            response.headers.append(("Cache-Control", "no-store"))
        }
        return response
    }

    /// `X-Request-Id` on every answer: the caller's when sane, else the one the gateway made.
    static let requestID = Middleware("request ID") { _, context, next in
        var response = await next(&context)
        response.headers.append((RequestID.header, context.id.value))
        return response
    }

    /// 404 for a path in any other spelling than the canonical one (``HTTPRequest/hasCanonicalPath``).
    static let canonicalPath = Middleware("canonical path") { _, context, next in
        guard context.request.hasCanonicalPath else { return .failure(ServiceFailure(.notFound, "No such endpoint.")) }
        return await next(&context)
    }

    /// Finds the route and its path parameters, so that what follows (and the labels) know it; the route
    /// itself runs after the last entry, and a path no route takes is answered there, 404 or 405.
    static let routeMatch = Middleware("route match") { handler, context, next in
        handler.match(&context)
        return await next(&context)
    }

    /// 413 for a body announced larger than the server reads, on any path.
    static let bodyLimit = Middleware("body limit") { _, context, next in
        guard !context.request.bodyTooLarge else { return .failure(RequestBody.tooLarge) }
        return await next(&context)
    }

    /// 429 with `Retry-After` when the client address is over its rate on a path that asks a provider.
    static let rateLimit = Middleware("rate limit") { handler, context, next in
        if let retryAfter = handler.rateLimit(context.request) {
            return .failure(ServiceFailure(.rateLimited, "Too many requests from this address; retry after \(retryAfter) s."),
                            retryAfter: retryAfter)
        }
        return await next(&context)
    }
}
