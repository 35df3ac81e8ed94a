import NATS
import Runtime

extension Readiness {
    /// Ready only while `connection` is connected to NATS and every one of `endpoints` takes requests.
    public func require(nats connection: NATSConnection, endpoints: [any Service]) {
        require("nats") { connection.isConnected }
        let counters = endpoints.compactMap { ($0 as? any ServiceDiscovery.EndpointReporting)?.counters }
        require("endpoints") { counters.allSatisfy(\.isServing) }
    }
}
