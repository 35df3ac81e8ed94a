import Foundation
import JOSE
import Testing
import TestSupport

/// docker-compose.yml: the stack of SPEC section 6, scalable, configured with SPEC section 5's
/// defaults, and valid for `docker-compose config`.
@Suite("docker-compose.yml")
struct ComposeFileTests {
    static let services = ["gateway", "token-verifier", "member-service", "token-issuer"]

    private func compose() async throws -> JSONValue {
        try #require(try await DeployFiles.parse(["docker-compose.yml"])["docker-compose.yml"]?.first)
    }

    @Test("postgres, nats with JetStream, the four services, and dev-idp only in the dev profile")
    func servicesAndProfiles() async throws {
        let services = try #require(try await compose()["services"])
        for name in ["postgres", "nats", "dev-idp"] + Self.services {
            #expect(services[name] != nil, "no service \(name)")
        }
        #expect(services.at("dev-idp.profiles")?.elements == [.string("dev")])
        for name in ["postgres", "nats"] + Self.services {
            #expect(services[name]?["profiles"] == nil, "\(name) is not in the default profile")
        }
        let natsCommand = services.at("nats.command")?.elements.compactMap(\.stringValue) ?? []
        #expect(natsCommand.contains("-js") && natsCommand.contains("-sd"), "nats without JetStream storage: \(natsCommand)")
    }

    @Test("every service scales: no container_name, no fixed host port except the gateway's, a health check, depends_on conditions")
    func scalable() async throws {
        let services = try #require(try await compose()["services"])
        guard case .object(let all) = services else { Issue.record("services is not a map"); return }
        for (name, service) in all {
            #expect(service["container_name"] == nil, "\(name) has a container_name and cannot scale")
            #expect(service["healthcheck"] != nil, "\(name) has no healthcheck")
            if service["ports"] != nil {
                #expect(name == "gateway" || name == "dev-idp", "\(name) publishes a host port and cannot scale")
            }
        }
        for name in Self.services {
            #expect(services.at("\(name).command")?.elements.first?.stringValue == name)
            #expect(services.at("\(name).depends_on.nats.condition")?.stringValue == "service_healthy", "\(name)")
        }
        for name in ["member-service", "token-issuer"] {
            #expect(services.at("\(name).depends_on.postgres.condition")?.stringValue == "service_healthy", "\(name)")
        }
    }

    @Test("configuration passes through with SPEC section 5's defaults")
    func configuration() async throws {
        let services = try #require(try await compose()["services"])
        let expected: [(service: String, variable: String, value: String)] = [
            ("gateway", "RATE_LIMIT_RPS", "${RATE_LIMIT_RPS:-10}"),
            ("gateway", "TOKEN_ISSUER", "${TOKEN_ISSUER:-http://localhost:8080}"),
            ("token-verifier", "GOOGLE_ISSUERS", "${GOOGLE_ISSUERS:-https://accounts.google.com,accounts.google.com}"),
            ("token-verifier", "GOOGLE_CLIENT_IDS", "${GOOGLE_CLIENT_IDS:-}"),
            ("token-verifier", "CLOCK_SKEW", "${CLOCK_SKEW:-60}"),
            ("token-issuer", "ACCESS_TOKEN_TTL", "${ACCESS_TOKEN_TTL:-900}"),
            ("token-issuer", "REFRESH_TOKEN_TTL", "${REFRESH_TOKEN_TTL:-2592000}"),
            ("token-issuer", "REFRESH_REUSE_GRACE", "${REFRESH_REUSE_GRACE:-10}"),
            ("member-service", "DATABASE_URL", "${DATABASE_URL:-postgres://auth:auth@postgres:5432/auth}"),
            ("member-service", "NATS_URL", "${NATS_URL:-nats://nats:4222}"),
        ]
        for (service, variable, value) in expected {
            #expect(services.at("\(service).environment")?[variable]?.stringValue == value, "\(service) \(variable)")
        }
    }

    @Test("docker-compose config accepts the file, with and without the dev profile")
    func dockerComposeConfig() async throws {
        let candidates = ["/usr/bin/docker-compose", "/usr/local/bin/docker-compose"]
        let binary = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) },
                                  "docker-compose is not installed (deploy/local/test installs it)")
        let plain = try await runProcess(binary, ["-f", "docker-compose.yml", "config", "-q"], workingDirectory: DeployFiles.root.path)
        #expect(plain.status == 0, "\(plain.error)")
        let dev = try await runProcess(binary, ["-f", "docker-compose.yml", "--env-file", "deploy/docker/dev.env",
                                                "--profile", "dev", "config"], workingDirectory: DeployFiles.root.path)
        #expect(dev.status == 0, "\(dev.error)")
        #expect(dev.output.contains("GOOGLE_CLIENT_IDS: dev-google-client"), "dev.env was not applied")
        #expect(dev.output.contains("DEV_IDP_BASE_URL: http://dev-idp:9400"))
    }
}
