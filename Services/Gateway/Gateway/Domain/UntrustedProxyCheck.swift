import Logging
import Synchronization

/// The sign of a proxy the gateway does not trust: behind a load balancer or ingress not listed in
/// `TRUSTED_PROXIES`, every client has the proxy's address, so the per-address rate limit is one bucket for
/// everyone, and a few junk requests a second lock every user out. Of the first `sample` rate-limited
/// requests after start, when one client address sent more than half, the gateway says so once.
///
/// It counts at most `sample` requests, so its table never holds more than `sample` addresses, and then
/// stops counting.
final class UntrustedProxyCheck: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var seen = 0
        var done = false
    }

    private let sample: Int
    private let logger: Logger
    private let state = Mutex(State())

    /// A check over the first `sample` requests.
    init(sample: Int = 1_000, logger: Logger) {
        self.sample = sample
        self.logger = logger
    }

    /// Counts one rate-limited request from `client`; at the last of the sample, warns when one client sent most.
    func observe(_ client: String) {
        let verdict: (client: String, count: Int)? = state.withLock { state in
            guard !state.done else { return nil }
            state.counts[client, default: 0] += 1
            state.seen += 1
            guard state.seen >= sample else { return nil }
            state.done = true
            let top = state.counts.max { $0.value < $1.value }
            state.counts = [:]
            guard let top, top.value * 2 > sample else { return nil }
            return (top.key, top.value)
        }
        guard let verdict else { return }
        logger.warning("one client address sent most of the first rate-limited requests: if the gateway is behind a proxy, load balancer "
                       + "or ingress, list its range in TRUSTED_PROXIES, or every client shares its rate limit",
                       ["client.address": verdict.client, "requests.count": String(verdict.count), "requests.sample": String(sample)])
    }

    /// Whether the sample is complete (the check has said what it had to).
    var isDone: Bool { state.withLock { $0.done } }
}
