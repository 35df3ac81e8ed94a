import Gateway
import Logging
import Runtime

Entrypoint.run("gateway") {
    let environment = EnvironmentReader()
    let logger = try Logger.fromEnvironment(label: "gateway", environment)
    let configuration = try GatewayConfiguration(environment: environment)
    try await GatewayServer(configuration: configuration, logger: logger).run()
}
