import Logging
import Runtime
import TokenVerifier

Entrypoint.run("token-verifier") {
    let environment = EnvironmentReader()
    let logger = try Logger.fromEnvironment(label: "token-verifier", environment)
    let configuration = try TokenVerifierConfiguration(environment: environment)
    try await TokenVerifierServer(configuration: configuration, logger: logger).run()
}
