import Logging
import MemberService
import Runtime

Entrypoint.run("member-service") {
    let environment = EnvironmentReader()
    let logger = try Logger.fromEnvironment(label: "member-service", environment)
    let configuration = try MemberServiceConfiguration(environment: environment)
    try await MemberServer(configuration: configuration, logger: logger).run()
}
