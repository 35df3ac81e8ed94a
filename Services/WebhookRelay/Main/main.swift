import Logging
import Runtime
import WebhookRelay

// Niceness 10: deliveries go out behind the logins, never in their way; on a busy host they fall behind while
// the load lasts and catch up after (each event waits in the stream meanwhile).
Entrypoint.run("webhook-relay", niceness: 10) {
    let environment = EnvironmentReader()
    let logger = try Logger.fromEnvironment(label: "webhook-relay", environment)
    let configuration = try WebhookRelayConfiguration(environment: environment)
    try await WebhookRelayServer(configuration: configuration, logger: logger).run()
}
