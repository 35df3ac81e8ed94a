import HTTPServer

/// One answer computed at most once per `maxAge`, however many ask at once: the callers of an
/// expensive, unauthenticated endpoint share the work instead of multiplying it.
actor RecentAnswer {
    private var last: (at: ContinuousClock.Instant, response: HTTPResponse)?
    private var running: Task<HTTPResponse, Never>?

    /// The answer of the last `make` if it is younger than `maxAge`, else a new one (joined by
    /// everyone who asks while it is computed).
    func get(maxAge: Duration, _ make: @escaping @Sendable () async -> HTTPResponse) async -> HTTPResponse {
        if let last, ContinuousClock.now - last.at < maxAge { return last.response }
        if let running { return await running.value }
        let task = Task { await make() }
        running = task
        let response = await task.value
        running = nil
        last = (.now, response)
        return response
    }
}
