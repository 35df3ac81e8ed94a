/// The tests' one way to wait for a condition: look, and look again every `poll` until it holds or
/// the deadline passes. A busy machine makes the wait longer, never wrong; nothing here assumes
/// that something happened "by now".

/// Calls `probe` every `poll` until `done` holds for what it returned or `timeout` has passed, and
/// returns the last thing it returned (which the caller checks). The probe runs at least once, and
/// once more after the deadline when the deadline passed during a pause; a cancelled wait returns at once.
public func poll<Value>(timeout: Duration, every poll: Duration = .milliseconds(100),
                        _ probe: () async throws -> Value, until done: (Value) throws -> Bool) async rethrows -> Value {
    let deadline = ContinuousClock.now + timeout
    while true {
        let value = try await probe()
        if try done(value) || ContinuousClock.now >= deadline || Task.isCancelled { return value }
        try? await Task.sleep(for: min(poll, max(deadline - ContinuousClock.now, .zero)))
    }
}

/// Polls `condition` every `poll` until it holds or `timeout` passes; returns whether it held.
public func eventually(timeout: Duration = .seconds(15), poll: Duration = .milliseconds(100),
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    try await TestSupport.poll(timeout: timeout, every: poll, condition, until: { $0 })
}

/// Polls `condition` every `poll` until it holds; throws a `TestStackError` that says `failure` when
/// `timeout` passes first.
public func waitUntil(timeout: Duration, poll: Duration = .milliseconds(100), _ failure: @autoclosure () -> String,
                      _ condition: () async throws -> Bool) async throws {
    guard try await eventually(timeout: timeout, poll: poll, condition) else { throw TestStackError(failure()) }
}
