import Logging
import Runtime
import TokenIssuer

Entrypoint.run("token-issuer") {
    let environment = EnvironmentReader()
    let logger = try Logger.fromEnvironment(label: "token-issuer", environment)
    let configuration = try TokenIssuerConfiguration(environment: environment)
    try await TokenIssuerServer(configuration: configuration, logger: logger).run()
}
