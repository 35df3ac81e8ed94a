import Foundation
import JSON
import Testing
import TestSupport

/// docker-compose.yml: the whole stack (docs/architecture.md), scalable, passing each service
/// exactly the variables docs/configuration.md lists for it with their defaults, and valid for
/// `docker-compose config`.
@Suite("docker-compose.yml")
struct ComposeFileTests {
    static let services = ["gateway", "token-verifier", "member-service", "token-issuer", "admin-api", "webhook-relay"]

    /// The compose file: the repository's, or (to show these checks fail on an older one) the one
    /// `COMPOSE_FILE_UNDER_TEST` names.
    private func compose() async throws -> JSONValue {
        let path = ProcessInfo.processInfo.environment["COMPOSE_FILE_UNDER_TEST"] ?? "docker-compose.yml"
        return try #require(try await DeployFiles.parse([path])[path]?.first)
    }

    @Test("postgres, nats with JetStream, the six services, and dev-idp only in the dev profile")
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

    @Test("the ha profile: nats-2 and nats-3 join nats as a cluster of three with stores of their own; ha.env points the services at all three and keeps the events on three; the single nats never sees the route password")
    func haProfile() async throws {
        let services = try #require(try await compose()["services"])
        var stores: Set<String> = []
        for (name, node) in [("nats", "nats"), ("nats-2", "nats-2"), ("nats-3", "nats-3")] {
            let command = services.at("\(name).command")?.elements.compactMap(\.stringValue) ?? []
            #expect(command.contains("-js") && command.firstIndex(of: "-n").map { command[$0 + 1] } == node, "\(name): \(command)")
            #expect(command.last == "/run/secrets/nats.conf", "\(name): \(command)")
            let volumes = services.at("\(name).volumes")?.elements.compactMap(\.stringValue) ?? []
            // nats starts with auth.conf alone unless ha.env names the cluster's volume.
            let configuration = name == "nats" ? "${NATS_SECRETS_VOLUME:-nats-secrets}" : "nats-cluster-secrets"
            #expect(volumes.first == "\(configuration):/run/secrets:ro", "\(name): \(volumes)")
            if name != "nats" {
                #expect(services.at("\(name).profiles")?.elements == [.string("ha")], "\(name) outside the ha profile")
            }
            stores.formUnion(volumes.dropFirst())
        }
        #expect(stores == ["nats-data:/data", "nats-2-data:/data", "nats-3-data:/data"])
        let settings = try String(contentsOfFile: "deploy/docker/ha.env", encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }
            .reduce(into: [String: String]()) { $0[String($1.split(separator: "=")[0])] = String($1.split(separator: "=", maxSplits: 1)[1]) }
        #expect(settings == ["COMPOSE_PROFILES": "ha", "NATS_SECRETS_VOLUME": "nats-cluster-secrets",
                             "NATS_URL": "nats://nats:4222,nats://nats-2:4222,nats://nats-3:4222", "EVENTS_REPLICAS": "3"])
    }

    @Test("every service scales: no container_name, no fixed host port except the gateway's and the admin-api's (each a range variable), a health check, depends_on conditions")
    func scalable() async throws {
        let services = try #require(try await compose()["services"])
        guard case .object(let all) = services else { Issue.record("services is not a map"); return }
        for (name, service) in all {
            #expect(service["container_name"] == nil, "\(name) has a container_name and cannot scale")
            #expect(service["healthcheck"] != nil, "\(name) has no healthcheck")
            if service["ports"] != nil {
                #expect(["gateway", "admin-api", "dev-idp"].contains(name), "\(name) publishes a host port and cannot scale")
            }
        }
        for name in Self.services {
            #expect(services.at("\(name).command")?.elements.first?.stringValue == name)
            #expect(services.at("\(name).depends_on.nats.condition")?.stringValue == "service_healthy", "\(name)")
        }
        for name in ["member-service", "token-issuer", "admin-api"] {
            #expect(services.at("\(name).depends_on.postgres.condition")?.stringValue == "service_healthy", "\(name)")
        }
    }

    @Test("the admin-api (the operators' API) is published on the host's loopback alone, on a port of its own, never on the gateway's; dev-idp on loopback too")
    func adminAPIOnLoopbackOnly() async throws {
        let services = try #require(try await compose()["services"])
        let ports = services.at("admin-api.ports")?.elements.compactMap(\.stringValue) ?? []
        #expect(ports == ["127.0.0.1:${ADMIN_PORTS:-8081}:8081"], "\(ports)")
        for entry in ports {
            #expect(entry.hasPrefix("127.0.0.1:"), "the admin-api is published beyond the host's loopback: \(entry)")
        }
        // Inside its container it listens on every address (the published port maps to it), on 8081.
        #expect(services.at("admin-api.environment")?["ADMIN_HOST"]?.stringValue == "0.0.0.0")
        #expect(services.at("admin-api.environment")?["ADMIN_PORT"]?.stringValue == "8081")
        // The gateway's public port maps to the gateway's API alone.
        for entry in services.at("gateway.ports")?.elements.compactMap(\.stringValue) ?? [] {
            #expect(entry.hasSuffix(":8080") && !entry.contains("8081"), "gateway: \(entry)")
        }
        #expect(services.at("gateway.environment")?["ADMIN_TOKENS_FILE"] == nil)
        for entry in services.at("dev-idp.ports")?.elements.compactMap(\.stringValue) ?? [] {
            #expect(entry.hasPrefix("127.0.0.1:"), "dev-idp: \(entry)")
        }
    }

    @Test("each container's secrets volume is mounted read-only into it alone (and into the secrets one-shot, which fills it); no compose secret, no other host file")
    func secretsReachTheirConsumersOnly() async throws {
        let file = try await compose()
        #expect(file["secrets"] == nil, "compose secrets are bind mounts: a missing file stops compose before anything can say which")
        let consumers: [String: Set<String>] = [
            "gateway-secrets": ["gateway"], "token-verifier-secrets": ["token-verifier"],
            "member-service-secrets": ["member-service"], "token-issuer-secrets": ["token-issuer"],
            "admin-api-secrets": ["admin-api"], "webhook-relay-secrets": ["webhook-relay"],
            "postgres-secrets": ["postgres"], "nats-secrets": ["nats"],
            "nats-cluster-secrets": ["nats-2", "nats-3"], "dev-idp-secrets": ["dev-idp"],
        ]
        let services = try #require(file["services"])
        guard case .object(let all) = services else { Issue.record("services is not a map"); return }
        var mounted: [String: Set<String>] = [:]
        for (name, service) in all where name != "secrets" {
            for entry in service["volumes"]?.elements.compactMap(\.stringValue) ?? [] {
                // A source chosen by a variable counts as its default (nats's, without the ha profile).
                var resolved = entry
                if resolved.hasPrefix("${"), let dash = resolved.range(of: ":-"), let brace = resolved.firstIndex(of: "}") {
                    resolved = String(resolved[dash.upperBound..<brace]) + String(resolved[resolved.index(after: brace)...])
                }
                let parts = resolved.split(separator: ":").map(String.init)
                let source = parts[0]
                // dev-secrets is the dev profile's store of development secrets, no container's own.
                guard source.hasSuffix("-secrets"), source != "dev-secrets" else { continue }
                mounted[source, default: []].insert(name)
                #expect(parts.count == 3 && parts[1] == "/run/secrets" && parts[2] == "ro", "\(name): \(entry)")
            }
        }
        #expect(mounted == consumers)
        // The one-shot writes each of them at /out/<consumer> (deploy/docker/compose-secrets).
        let oneShot = Set(services.at("secrets.volumes")?.elements.compactMap(\.stringValue) ?? [])
        for volume in consumers.keys {
            #expect(oneShot.contains("\(volume):/out/\(volume.dropLast("-secrets".count))"), "the secrets service does not fill \(volume)")
        }
        #expect(oneShot.contains("${SECRETS_DIR:-./deploy/docker/.secrets}:/given:ro"))
        #expect(oneShot.contains("dev-secrets:/made") && oneShot.contains("./deploy/docker/dev.env:/dev.env:ro"))
        #expect(services.at("secrets.command")?.elements == [.string("compose-secrets")])
        // Every other service waits for it; the dev profile's dev-secrets is the one it waits for.
        for (name, service) in all where !["secrets", "dev-secrets"].contains(name) {
            #expect(service.at("depends_on.secrets.condition")?.stringValue == "service_completed_successfully", "\(name)")
        }
        #expect(services.at("dev-secrets.profiles")?.elements == [.string("dev")])
        #expect(services.at("dev-secrets.depends_on") == nil, "dev-secrets must start beside the secrets service, not after it")
    }

    @Test("configuration passes through with the code's defaults; PROVIDER_TOKEN_KEY to token-verifier only")
    func configuration() async throws {
        let services = try #require(try await compose()["services"])
        let expected: [(service: String, variable: String, value: String)] = [
            ("gateway", "RATE_LIMIT_RPS", "${RATE_LIMIT_RPS:-10}"),
            ("gateway", "TOKEN_ISSUER", "${TOKEN_ISSUER:-http://localhost:8080}"),
            // Empty, so the code's default applies, and the dev profile's settings.env can fill it.
            ("token-verifier", "GOOGLE_ISSUERS", "${GOOGLE_ISSUERS:-}"),
            ("token-verifier", "SETTINGS_FILE", "/run/secrets/settings.env"),
            ("token-verifier", "GOOGLE_CLIENT_IDS", "${GOOGLE_CLIENT_IDS:-}"),
            ("token-verifier", "CLOCK_SKEW", "${CLOCK_SKEW:-60}"),
            ("token-issuer", "ACCESS_TOKEN_TTL", "${ACCESS_TOKEN_TTL:-900}"),
            ("token-issuer", "REFRESH_TOKEN_TTL", "${REFRESH_TOKEN_TTL:-2592000}"),
            ("token-issuer", "REFRESH_REUSE_GRACE", "${REFRESH_REUSE_GRACE:-10}"),
            // Each its own role (deploy/postgres/roles.sql); the password from its secret, not from the URL.
            ("member-service", "DATABASE_URL", "${MEMBER_DATABASE_URL:-postgres://member_service@postgres:5432/auth}"),
            ("token-issuer", "DATABASE_URL", "${ISSUER_DATABASE_URL:-postgres://token_issuer@postgres:5432/auth}"),
            ("token-issuer", "NATS_NKEY_SEED_FILE", "${NATS_NKEY_SEED_FILE:-/run/secrets/nats-seed}"),
            ("member-service", "DATABASE_PASSWORD_FILE", "${DATABASE_PASSWORD_FILE:-/run/secrets/database-password}"),
            ("token-issuer", "SIGNING_KEY_FILE", "${SIGNING_KEY_FILE:-/run/secrets/signing-key.pem}"),
            ("token-verifier", "PROVIDER_TOKEN_KEY_FILE", "${PROVIDER_TOKEN_KEY_FILE:-/run/secrets/provider-token-key}"),
            ("member-service", "NATS_URL", "${NATS_URL:-nats://nats:4222}"),
            // The admin-api: its own role (schema audit), its own seed and password files, its admins.
            ("admin-api", "DATABASE_URL", "${ADMIN_DATABASE_URL:-postgres://admin_api@postgres:5432/auth}"),
            ("admin-api", "DATABASE_PASSWORD_FILE", "${DATABASE_PASSWORD_FILE:-/run/secrets/database-password}"),
            ("admin-api", "NATS_NKEY_SEED_FILE", "${NATS_NKEY_SEED_FILE:-/run/secrets/nats-seed}"),
            ("admin-api", "ADMIN_TOKENS_FILE", "${ADMIN_TOKENS_FILE:-/run/secrets/admin-tokens}"),
            ("admin-api", "AUDIT_RETENTION_DAYS", "${AUDIT_RETENTION_DAYS:-365}"),
        ]
        for (service, variable, value) in expected {
            #expect(services.at("\(service).environment")?[variable]?.stringValue == value, "\(service) \(variable)")
        }
        // The key that seals provider grants is the verifier's alone.
        #expect(services.at("token-verifier.environment")?["PROVIDER_TOKEN_KEY"]?.stringValue == "${PROVIDER_TOKEN_KEY:-}")
        for name in ["gateway", "member-service", "token-issuer", "admin-api", "dev-idp"] {
            #expect(services.at("\(name).environment")?["PROVIDER_TOKEN_KEY"] == nil, "\(name) gets PROVIDER_TOKEN_KEY")
        }
        // The admins' file is the admin-api's alone.
        for name in ["gateway", "token-verifier", "member-service", "token-issuer", "webhook-relay", "dev-idp"] {
            #expect(services.at("\(name).environment")?["ADMIN_TOKENS_FILE"] == nil, "\(name) gets ADMIN_TOKENS_FILE")
        }
    }

    @Test("the webhook-relay: its endpoints from its own secrets volume, no port published (it only calls out), https to public addresses unless the dev profile's settings say otherwise")
    func webhookRelay() async throws {
        let services = try #require(try await compose()["services"])
        #expect(services.at("webhook-relay.ports") == nil, "the relay publishes a port")
        #expect(services.at("webhook-relay.expose") == nil)
        #expect(services.at("webhook-relay.profiles") == nil, "the relay is not in the default profile")
        let environment = services.at("webhook-relay.environment")
        #expect(environment?["WEBHOOKS_FILE"]?.stringValue == "${WEBHOOKS_FILE:-/run/secrets/webhooks}")
        #expect(environment?["NATS_NKEY_SEED_FILE"]?.stringValue == "${NATS_NKEY_SEED_FILE:-/run/secrets/nats-seed}")
        #expect(environment?["SETTINGS_FILE"]?.stringValue == "/run/secrets/settings.env")
        // Empty, so the code's defaults (false) hold unless the dev profile's settings.env fills them.
        for name in ["WEBHOOK_ALLOW_HTTP", "WEBHOOK_ALLOW_PRIVATE_ADDRESSES"] {
            #expect(environment?[name]?.stringValue == "${\(name):-}", "\(name): \(String(describing: environment?[name]))")
        }
        #expect(services.at("webhook-relay.restart")?.stringValue == "unless-stopped")
        // The endpoints' signing secrets are the relay's alone.
        for name in ["gateway", "token-verifier", "member-service", "token-issuer", "admin-api", "dev-idp"] {
            #expect(services.at("\(name).environment")?["WEBHOOKS_FILE"] == nil, "\(name) gets WEBHOOKS_FILE")
        }
    }

    /// The services whose environment the configuration reference describes: the admin-api and the
    /// webhook-relay once docs/configuration.md (and so `ConfigurationReference.services`) names them.
    static let configured = ["gateway", "token-verifier", "member-service", "token-issuer", "dev-idp"]
        + ["admin-api", "webhook-relay"].filter(ConfigurationReference.services.contains)

    /// The admin-api's variables (issue 32) while the configuration reference does not name it yet:
    /// then `configured` holds it, and forwardsEveryVariable checks it against the reference instead.
    static let adminAPIVariables: Set<String> = [
        "ADMIN_HOST", "ADMIN_PORT", "ADMIN_TOKENS_FILE", "DATABASE_URL", "DATABASE_PASSWORD_FILE",
        "AUDIT_RETENTION_DAYS", "AUDIT_MAX_PER_MEMBER", "AUDIT_MAX_RECORDS", "SERVICE_TIMEOUT",
        "NATS_URL", "NATS_NKEY_SEED_FILE", "NATS_TLS_CA_FILE", "NATS_TLS_CERT_FILE", "NATS_TLS_KEY_FILE",
        "LOG_LEVEL", "LOG_FORMAT", "MANAGEMENT_HOST", "MANAGEMENT_PORT", "EVENTS_MAX_AGE", "EVENTS_REPLICAS",
    ]

    @Test("the admin-api's environment forwards the variables it reads (issue 32's list), while the configuration reference does not name it",
          .enabled(if: !ConfigurationReference.services.contains("admin-api")))
    func adminAPIEnvironment() async throws {
        let services = try #require(try await compose()["services"])
        let forwarded = Set(try #require(environment(services, "admin-api"), "admin-api has no environment map").keys)
        #expect(forwarded == Self.adminAPIVariables,
                "missing: \(Self.adminAPIVariables.subtracting(forwarded).sorted()); not read: \(forwarded.subtracting(Self.adminAPIVariables).sorted())")
    }

    /// Variables docs/configuration.md lists for a service that docker-compose.yml deliberately
    /// does not forward to it, each with the reason. Naver's client secret goes only as a file
    /// (`NAVER_CLIENT_SECRET_FILE`, a compose secret): an environment variable shows in `docker inspect`.
    static let notForwarded: [String: Set<String>] = ["token-verifier": ["NAVER_CLIENT_SECRET"]]

    /// Variables compose forwards to a service for the image's entrypoint, not for the service:
    /// the dev profile's settings file (deploy/docker/entrypoint).
    static let forTheEntrypoint: [String: Set<String>] = ["token-verifier": ["SETTINGS_FILE"], "webhook-relay": ["SETTINGS_FILE"]]

    /// Variables compose sets to a fixed value instead of forwarding: the container's own listening
    /// address, which its published port maps to.
    static let fixedInContainer: Set<String> = ["GATEWAY_HOST", "GATEWAY_PORT", "ADMIN_HOST", "ADMIN_PORT", "DEV_IDP_HOST", "DEV_IDP_PORT",
                                                 "SETTINGS_FILE"]

    /// Variables whose compose default differs from the code's on purpose: inside the compose
    /// network the servers are `postgres`, `nats` and `dev-idp`.
    static let composeDefaults: Set<String> = ["NATS_URL", "DATABASE_URL", "DEV_IDP_BASE_URL"]

    /// Variables each service gets from a compose variable of its own: `DATABASE_URL` names each
    /// service's own database role (SPEC section 9), so one value for both would be wrong.
    static let perService: [String: [String: String]] = [
        "DATABASE_URL": ["member-service": "MEMBER_DATABASE_URL", "token-issuer": "ISSUER_DATABASE_URL",
                         "admin-api": "ADMIN_DATABASE_URL"],
    ]

    /// The `environment` map of a compose service (merge keys resolved), or nil.
    private func environment(_ services: JSONValue, _ name: String) -> [String: JSONValue]? {
        if case .object(let members) = services.at("\(name).environment") { members } else { nil }
    }

    @Test("each service's environment forwards exactly the variables docs/configuration.md says it reads",
          arguments: configured)
    func forwardsEveryVariable(_ service: String) async throws {
        let reference = try ConfigurationReference.load()
        #expect(reference.unclearRows.isEmpty, "rows naming neither services only nor scripts only: \(reference.unclearRows.map(\.name))")
        let documented = reference.variables(readBy: service)
        try #require(!documented.isEmpty, "docs/configuration.md lists no variable for \(service)")
        let services = try #require(try await compose()["services"])
        let forwarded = Set(try #require(environment(services, service), "\(service) has no environment map").keys)
        let expected = documented.subtracting(Self.notForwarded[service] ?? []).union(Self.forTheEntrypoint[service] ?? [])
        #expect(expected.subtracting(forwarded).isEmpty,
                "docker-compose.yml does not forward to \(service): \(expected.subtracting(forwarded).sorted())")
        #expect(forwarded.subtracting(expected).isEmpty,
                "docker-compose.yml forwards to \(service), which does not read them: \(forwarded.subtracting(expected).sorted())")
    }

    @Test("each forwarded value is its own variable, with the default docs/configuration.md gives or empty (the code's)",
          arguments: configured)
    func forwardedValues(_ service: String) async throws {
        let reference = try ConfigurationReference.load()
        let defaults = Dictionary(reference.serviceRows.map { ($0.name, $0.defaultCell) }, uniquingKeysWith: { first, _ in first })
        let services = try #require(try await compose()["services"])
        for (name, value) in environment(services, service) ?? [:] {
            let text = value.stringValue ?? ""
            if Self.fixedInContainer.contains(name) { continue }
            let prefix = "${\(Self.perService[name]?[service] ?? name):-"
            guard text.hasPrefix(prefix), text.hasSuffix("}") else {
                Issue.record("\(service) \(name): '\(text)' is not ${\(name):-default}")
                continue
            }
            let composeDefault = String(text.dropFirst(prefix.count).dropLast())
            guard !composeDefault.isEmpty, !Self.composeDefaults.contains(name),
                  let documented = defaults[name].flatMap(ConfigurationReference.singleValue) else { continue }
            #expect(composeDefault == documented, "\(service) \(name): compose's default '\(composeDefault)', the reference's '\(documented)'")
        }
    }

    @Test("a variable forwarded to several services has the same value in each")
    func sharedVariablesAgree() async throws {
        let services = try #require(try await compose()["services"])
        var values: [String: [(service: String, value: String)]] = [:]
        for service in Set(Self.configured + ["admin-api", "webhook-relay"]).sorted() {
            for (name, value) in environment(services, service) ?? [:] {
                values[name, default: []].append((service, value.stringValue ?? "\(value)"))
            }
        }
        for (name, uses) in values where Set(uses.map(\.value)).count > 1 && Self.perService[name] == nil {
            Issue.record("\(name) differs between services: \(uses.map { "\($0.service): \($0.value)" })")
        }
    }

    @Test("the reference parser: service rows, script rows, escaped pipes, header and separator rows")
    func referenceParser() {
        let sample = #"""
            # Configuration

            | Variable | Read by | Default | Meaning |
            |---|---|---|---|
            | `GATEWAY_PORT` | gateway | `8080` | The port. A bad value stops the gateway at start. |
            | `CLOCK_SKEW` | gateway, token-verifier | `60` | Seconds of leeway \| both ways. |
            |`NATS_URL`|`gateway`, `token-verifier`,member-service| `nats://127.0.0.1:4222` | Servers. |
            | `PG_PORT` | `deploy/local/up` | `5432` | The throwaway cluster's port. |
            | `MIXED` | gateway, deploy/local/up | none | A mistake. |
            | `lower_case` | gateway | | Not a variable name. |
            | Text `NOT_FIRST` | gateway | | Not a variable row. |
              | `INDENTED` | dev-idp | `x` | Still a row. |
            """#
        let reference = ConfigurationReference(markdown: sample)
        #expect(reference.rows.map(\.name) == ["GATEWAY_PORT", "CLOCK_SKEW", "NATS_URL", "PG_PORT", "MIXED", "INDENTED"])
        #expect(reference.variables(readBy: "gateway") == ["GATEWAY_PORT", "CLOCK_SKEW", "NATS_URL"])
        #expect(reference.variables(readBy: "token-verifier") == ["CLOCK_SKEW", "NATS_URL"])
        #expect(reference.variables(readBy: "member-service") == ["NATS_URL"])
        #expect(reference.variables(readBy: "dev-idp") == ["INDENTED"])
        #expect(reference.scriptRows.map(\.name) == ["PG_PORT"])
        #expect(reference.unclearRows.map(\.name) == ["MIXED"])
        #expect(reference.rows.first { $0.name == "NATS_URL" }?.defaultCell == "`nats://127.0.0.1:4222`")
        #expect(ConfigurationReference.singleValue("`60`") == "60")
        #expect(ConfigurationReference.singleValue("`a`, `b`") == nil)
        #expect(ConfigurationReference.singleValue("none") == nil)
        #expect(ConfigurationReference.cells(of: "| a \\| b | c |") == ["a | b", "c"])
    }

    @Test("docker-compose config accepts the file, with and without the dev profile, and with ha.env (nats then starts with the cluster's volume); no provider points at dev-idp in compose itself")
    func dockerComposeConfig() async throws {
        let candidates = ["/usr/bin/docker-compose", "/usr/local/bin/docker-compose"]
        let binary = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) },
                                  "docker-compose is not installed (deploy/local/test installs it)")
        let plain = try await runProcess(binary, ["-f", "docker-compose.yml", "config"], workingDirectory: DeployFiles.root.path)
        #expect(plain.status == 0, "\(plain.error)")
        #expect(!plain.output.contains("dev-idp:9400/"), "a provider points at dev-idp without the dev profile")
        #expect(section("admin-api", of: plain.output).contains("127.0.0.1:8081:8081"), "\(section("admin-api", of: plain.output))")
        let dev = try await runProcess(binary, ["-f", "docker-compose.yml", "--profile", "dev", "config"], workingDirectory: DeployFiles.root.path)
        #expect(dev.status == 0, "\(dev.error)")
        #expect(dev.output.contains("DEV_IDP_BASE_URL: http://dev-idp:9400"))
        #expect(!section("dev-secrets", of: dev.output).isEmpty, "the dev profile has no dev-secrets")
        // dev-idp's own settings are the dev profile's defaults; the verifier's come from dev.env (settings.env).
        for line in ["DEV_IDP_NAVER_CLIENT_ID: dev-naver-client", "DEV_IDP_NAVER_CLIENT_SECRET: dev-naver-secret",
                     "DEV_IDP_APPLE_TEAM_ID: DEVTEAM001", "DEV_IDP_APPLE_KEY_ID: DEVKEY0001", "DEV_IDP_APPLE_CLIENT_ID: dev.apple.client"] {
            #expect(section("dev-idp", of: dev.output).contains(line), "the dev profile's dev-idp lacks \(line)")
        }
        let devEnv = try String(contentsOfFile: DeployFiles.root.appendingPathComponent("deploy/docker/dev.env").path, encoding: .utf8)
        for line in ["NAVER_CLIENT_ID=dev-naver-client", "APPLE_TEAM_ID=DEVTEAM001", "APPLE_KEY_ID=DEVKEY0001",
                     "APPLE_CLIENT_IDS=dev.apple.client", "NAVER_PROFILE_URL=http://dev-idp:9400/naver/v1/nid/me",
                     "NAVER_TOKEN_URL=http://dev-idp:9400/naver/oauth2.0/token", "KAKAO_ISSUER=http://dev-idp:9400/kakao"] {
            #expect(devEnv.contains("\n\(line)\n"), "dev.env lacks \(line), which dev-idp's side expects")
        }
        // Each line of dev.env fills a variable its service's environment names with an empty default
        // (the WEBHOOK_ lines the webhook-relay's, the others token-verifier's; compose-secrets splits
        // them so): the entrypoint takes no other (SETTINGS_FILE), and one with a default of its own
        // would never be filled.
        let services = try #require(try await compose()["services"])
        for line in devEnv.split(separator: "\n") where !line.hasPrefix("#") && line.contains("=") {
            let name = String(line.split(separator: "=")[0])
            let service = name.hasPrefix("WEBHOOK_") ? "webhook-relay" : "token-verifier"
            let reader = environment(services, service) ?? [:]
            #expect(reader[name]?.stringValue == "${\(name):-}", "dev.env's \(name): \(service)'s environment has \(String(describing: reader[name]))")
        }
        #expect(devEnv.contains("\nWEBHOOK_ALLOW_HTTP=true\n") && devEnv.contains("\nWEBHOOK_ALLOW_PRIVATE_ADDRESSES=true\n"),
                "the dev profile's relay cannot reach dev-idp's inbox (http, a container's private address)")
        #expect(section("nats", of: dev.output).contains("- nats-secrets:/run/secrets:ro"), "\(section("nats", of: dev.output))")
        // As deploy/docker/test and deploy/README.md bring up the ha profile: ha.env in the environment.
        let settings = try String(contentsOfFile: DeployFiles.root.appendingPathComponent("deploy/docker/ha.env").path, encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }.map(String.init)
        let ha = try await runProcess("/usr/bin/env", settings + [binary, "-f", "docker-compose.yml", "--profile", "dev", "--profile", "ha", "config"],
                                      workingDirectory: DeployFiles.root.path)
        #expect(ha.status == 0, "\(ha.error)")
        for node in ["nats", "nats-2", "nats-3"] {
            #expect(section(node, of: ha.output).contains("- nats-cluster-secrets:/run/secrets:ro"), "\(node): \(section(node, of: ha.output))")
        }
        #expect(ha.output.contains("NATS_URL: nats://nats:4222,nats://nats-2:4222,nats://nats-3:4222"))
        #expect(ha.output.contains("EVENTS_REPLICAS: '3'"), "the events are not kept on three nodes")
    }

    /// The lines of service `name` in `docker-compose config`'s output (two spaces in, up to the next service).
    private func section(_ name: String, of output: String) -> String {
        guard let start = output.range(of: "\n  \(name):\n") else { return "" }
        let rest = output[start.upperBound...]
        let end = rest.range(of: "\n  [a-z][a-z0-9-]*:\n", options: .regularExpression)?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }
}
