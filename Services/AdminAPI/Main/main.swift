import AdminAPI
import Logging
import Runtime

Entrypoint.run("admin-api") {
    let environment = EnvironmentReader()
    let logger = try Logger.fromEnvironment(label: "admin-api", environment)
    let configuration = try AdminAPIConfiguration(environment: environment)
    try await AdminAPIServer(configuration: configuration, logger: logger).run()
}
