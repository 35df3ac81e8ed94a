import HTTPServer

/// One concern of the gateway's request handling (the request ID, a limit, the metrics), in hummingbird's
/// manner: it sees the request's context on the way in, may answer at once or call `next` (the entries
/// after it, then the route), and sees the answer on the way out. ``APIHandler/middleware`` lists them
/// in order, outermost first.
struct Middleware: Sendable {
    /// The rest of the pipeline: the entries after this one, then the route.
    typealias Next = (inout RequestContext) async -> HTTPResponse

    /// What the entry is for, as docs/architecture.md names it.
    let name: String
    /// Answers the request, calling `next` to hand it on (the context is shared, so an outer entry sees
    /// what an inner one learnt: the route, the member).
    let handle: @Sendable (APIHandler, inout RequestContext, Next) async -> HTTPResponse

    /// An entry named `name` that runs `handle`.
    init(_ name: String, _ handle: @escaping @Sendable (APIHandler, inout RequestContext, Next) async -> HTTPResponse) {
        self.name = name
        self.handle = handle
    }
}
