import AdminAPI
import Logging
import Runtime

// Niceness 10: the audit trail is written behind the logins, never in their way; on a busy host it falls
// behind while the load lasts and catches up after (the operators' HTTP answers are rare and small).
Entrypoint.run("admin-api", niceness: 10) {
    let environment = EnvironmentReader()
    let logger = try Logger.fromEnvironment(label: "admin-api", environment)
    let configuration = try AdminAPIConfiguration(environment: environment)
    try await AdminAPIServer(configuration: configuration, logger: logger).run()
}
