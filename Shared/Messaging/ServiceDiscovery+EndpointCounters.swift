import Collections
import Contracts
import Synchronization

extension ServiceDiscovery {
    /// Something that serves one endpoint and counts its requests (a ``Responder``), so
    /// ``ServiceDiscovery`` can list it.
    public protocol EndpointReporting: Sendable {
        /// The endpoint's live counts.
        var counters: EndpointCounters { get }
    }

    /// The live request and error counts of one endpoint; one lock, taken once per request.
    public final class EndpointCounters: Sendable {
        /// The endpoint's name and subjects, as `$SRV.INFO` lists them.
        public let info: EndpointInfo
        private let state = Mutex(State())
        private let subscribed = Atomic<Bool>(false)

        private struct State {
            var requests = 0
            var errors = 0
            var lastError = ""
            var processingTime: Duration = .zero
            var dropped = 0
        }

        /// Creates counters for the endpoint on `subject`, served in `queueGroup`.
        public init(subject: String, queueGroup: String) {
            let name = subject.split(separator: ".").last.map(String.init) ?? subject
            self.info = EndpointInfo(name: name, subject: subject, queueGroup: queueGroup, metadata: nil)
        }

        /// True while the endpoint's subscription takes requests (for `/readyz`).
        public var isServing: Bool { subscribed.load(ordering: .acquiring) }

        /// Notes that the subscription started or stopped taking requests.
        public func setServing(_ serving: Bool) { subscribed.store(serving, ordering: .releasing) }

        /// Counts one handled request that took `duration`, with its failure if it failed.
        public func record(duration: Duration, failure: ServiceFailure?) {
            state.withLock { state in
                state.requests += 1
                state.processingTime += duration
                if let failure {
                    state.errors += 1
                    state.lastError = failure.description
                }
            }
        }

        /// Counts one request dropped unread: its reply subject was no inbox.
        public func recordDropped() {
            state.withLock { $0.dropped += 1 }
        }

        /// The requests dropped unread so far.
        public var droppedCount: Int {
            state.withLock { $0.dropped }
        }

        /// The counts as `$SRV.STATS` reports them.
        public func snapshot() -> EndpointStats {
            let state = state.withLock { $0 }
            let total = state.processingTime.nanoseconds
            return EndpointStats(name: info.name, subject: info.subject, queueGroup: info.queueGroup,
                                 numRequests: state.requests, numErrors: state.errors, lastError: state.lastError,
                                 processingTime: total,
                                 averageProcessingTime: state.requests > 0 ? total / Int64(state.requests) : 0,
                                 data: EndpointData(droppedRequests: state.dropped))
        }
    }
}
