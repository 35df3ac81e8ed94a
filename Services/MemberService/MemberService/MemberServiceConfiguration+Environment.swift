import Management
import Messaging
import Persistence
import Runtime

extension MemberServiceConfiguration {
    /// Reads the member-service's variables (docs/configuration.md); throws naming the variable at fault.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        natsURL = try environment.urlList("NATS_URL", default: natsURL, schemes: ["nats", "tls"])
        natsAccess = try environment.natsAccess(for: .memberService)
        databaseURL = try environment.databaseURL(default: databaseURL)
        databasePoolSize = try environment.int("DATABASE_POOL_SIZE", default: databasePoolSize, in: 1...256)
        outboxPollInterval = try environment.seconds("OUTBOX_POLL_INTERVAL", default: outboxPollInterval, in: 1...60)
        management = try environment.management(defaultPort: nil)
        events = try environment.eventStream()
        clockSkew = try environment.seconds("CLOCK_SKEW", default: clockSkew, in: 0...600)
        reauthenticationWindow = try environment.seconds("REAUTHENTICATION_WINDOW", default: reauthenticationWindow, in: 1...86_400)
    }
}
