import Contracts
import Messaging
import Testing

/// The counts a responder keeps for `$SRV.STATS`: requests, failures, the last failure and time.
@Suite("Service discovery endpoint counters")
struct DiscoveryCountersTests {
    @Test("requests, errors, last error and processing times add up")
    func counts() {
        let counters = ServiceDiscovery.EndpointCounters(subject: "auth.member.login", queueGroup: "member-service")
        #expect(counters.info.name == "login")
        #expect(counters.snapshot().averageProcessingTime == 0)

        counters.record(duration: .milliseconds(2), failure: nil)
        counters.record(duration: .milliseconds(4), failure: ServiceFailure(.notFound, "No such member."))
        let stats = counters.snapshot()
        #expect(stats.numRequests == 2)
        #expect(stats.numErrors == 1)
        #expect(stats.lastError == "NOT_FOUND: No such member.")
        #expect(stats.processingTime == 6_000_000)
        #expect(stats.averageProcessingTime == 3_000_000)
        #expect(stats.queueGroup == "member-service")
    }
}
