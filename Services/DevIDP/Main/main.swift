import DevIDP
import Logging
import Runtime

Entrypoint.run("dev-idp") {
    let environment = EnvironmentReader()
    let logger = try Logger.fromEnvironment(label: "dev-idp", environment)
    let configuration = try DevIDPConfiguration(environment: environment)
    try await DevIDPServer(configuration: configuration, logger: logger).run()
}
