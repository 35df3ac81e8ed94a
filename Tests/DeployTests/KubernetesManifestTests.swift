import IPAddresses
import JSON
import Testing

/// deploy/k8s: every manifest parses; each service has a Deployment with probes, resources and
/// a non-root security context, a HorizontalPodAutoscaler (or a fixed replica count) and a
/// PodDisruptionBudget; each Secret reaches one service; a NetworkPolicy denies by default;
/// references resolve.
@Suite("Kubernetes manifests")
struct KubernetesManifestTests {
    static let services = ["gateway", "token-verifier", "member-service", "token-issuer", "admin-api", "webhook-relay"]

    /// Deployments with a replica count of their own instead of an autoscaler: the webhook-relay's work is
    /// waiting on its endpoints, not CPU.
    static let fixedReplicas: [String: Int64] = ["webhook-relay": 2]

    private func documents() async throws -> [(file: String, document: JSONValue)] {
        let files = try DeployFiles.kubernetesFiles()
        #expect(!files.isEmpty)
        let parsed = try await DeployFiles.parse(files)
        return files.flatMap { file in (parsed[file] ?? []).map { (file, $0) } }
    }

    private func objects(_ kind: String, in documents: [(file: String, document: JSONValue)]) -> [String: JSONValue] {
        var found: [String: JSONValue] = [:]
        for (_, document) in documents where document["kind"]?.stringValue == kind {
            if let name = document.at("metadata.name")?.stringValue { found[name] = document }
        }
        return found
    }

    @Test("every file parses and every document has apiVersion, kind and a name")
    func parses() async throws {
        for (file, document) in try await documents() {
            #expect(document["apiVersion"]?.stringValue != nil, "\(file): no apiVersion")
            let kind = document["kind"]?.stringValue
            #expect(kind != nil, "\(file): no kind")
            if kind != "Kustomization" {
                #expect(document.at("metadata.name")?.stringValue?.isEmpty == false, "\(file): \(kind ?? "?") without a name")
            }
        }
    }

    @Test("the kustomization lists every other manifest")
    func kustomizationComplete() async throws {
        let all = try await documents()
        let kustomization = try #require(all.first { $0.document["kind"]?.stringValue == "Kustomization" })
        let listed = Set(kustomization.document["resources"]?.elements.compactMap(\.stringValue) ?? [])
        let files = Set(all.map(\.file).filter { $0 != kustomization.file }.map { String($0.dropFirst("deploy/k8s/".count)) })
        #expect(listed == files)
    }

    @Test("each service has a Deployment with probes, resources and a non-root security context")
    func deployments() async throws {
        let deployments = objects("Deployment", in: try await documents())
        #expect(Set(deployments.keys) == Set(Self.services))
        for (name, deployment) in deployments {
            if let fixed = Self.fixedReplicas[name] {
                #expect(deployment.at("spec.replicas") == .integer(fixed), "\(name): \(String(describing: deployment.at("spec.replicas")))")
            } else {
                #expect(deployment.at("spec.replicas") == nil, "\(name): replicas fights the HPA")
            }
            let pod = try #require(deployment.at("spec.template.spec"), "\(name): no pod spec")
            #expect(pod.at("securityContext.runAsNonRoot") == .bool(true), "\(name): pod may run as root")
            if case .integer(let user) = pod.at("securityContext.runAsUser") { #expect(user != 0, "\(name): runs as root") }
            let containers = pod["containers"]?.elements ?? []
            #expect(!containers.isEmpty)
            for container in containers {
                #expect(container["readinessProbe"] != nil, "\(name): no readinessProbe")
                #expect(container["livenessProbe"] != nil, "\(name): no livenessProbe")
                #expect(container.at("resources.requests.cpu") != nil, "\(name): no CPU request (the HPA needs it)")
                #expect(container.at("resources.requests.memory") != nil, "\(name): no memory request")
                #expect(container.at("resources.limits.memory") != nil, "\(name): no memory limit")
                #expect(container.at("securityContext.allowPrivilegeEscalation") == .bool(false), "\(name): privilege escalation allowed")
                #expect(container["command"]?.elements.first?.stringValue == name, "\(name): runs another executable")
            }
        }
        let gateway = try #require(deployments["gateway"]?.at("spec.template.spec")?["containers"]?.elements.first)
        #expect(gateway.at("readinessProbe.httpGet.path")?.stringValue == "/readyz")
        #expect(gateway.at("livenessProbe.httpGet.path")?.stringValue == "/healthz")
    }

    @Test("each Deployment has a HorizontalPodAutoscaler, or a fixed count of at least 2; the gateway has a Service")
    func autoscalersAndServices() async throws {
        let all = try await documents()
        let deployments = objects("Deployment", in: all)
        let autoscalers = objects("HorizontalPodAutoscaler", in: all).values
        for name in deployments.keys {
            let matching = autoscalers.filter {
                $0.at("spec.scaleTargetRef.kind")?.stringValue == "Deployment" && $0.at("spec.scaleTargetRef.name")?.stringValue == name
            }
            if let fixed = Self.fixedReplicas[name] {
                #expect(matching.isEmpty && fixed >= 2, "\(name): \(matching.count) autoscalers beside a fixed \(fixed) replicas")
                continue
            }
            #expect(matching.count == 1, "\(name): \(matching.count) autoscalers")
            if let hpa = matching.first, case .integer(let low) = hpa.at("spec.minReplicas"), case .integer(let high) = hpa.at("spec.maxReplicas") {
                #expect(low >= 2 && high > low, "\(name): replicas \(low)...\(high)")
            } else {
                Issue.record("\(name): autoscaler without min/max replicas")
            }
        }
        let service = try #require(objects("Service", in: all)["gateway"])
        let labels = deployments["gateway"]?.at("spec.template.metadata.labels")
        guard case .object(let selector) = service.at("spec.selector"), !selector.isEmpty else {
            Issue.record("the gateway Service has no selector")
            return
        }
        for (key, value) in selector {
            #expect(labels?[key] == value, "the gateway Service selects \(key)=\(value), which its pods lack")
        }
    }

    @Test("PROVIDER_TOKEN_KEY, which seals provider grants, reaches token-verifier only")
    func providerTokenKeyOnlyForTheVerifier() async throws {
        for (name, deployment) in objects("Deployment", in: try await documents()) {
            let containers = deployment.at("spec.template.spec")?["containers"]?.elements ?? []
            let names = containers.flatMap { ($0["env"]?.elements ?? []).compactMap { $0["name"]?.stringValue } }
            let hasKey = names.contains("PROVIDER_TOKEN_KEY") || names.contains("PROVIDER_TOKEN_KEY_FILE")
            #expect(hasKey == (name == "token-verifier"), "\(name): \(names)")
        }
    }

    @Test("each Secret reaches exactly one Deployment; the gateway gets its NATS seed alone")
    func secretsOneConsumerEach() async throws {
        let all = try await documents()
        var consumers: [String: Set<String>] = [:]
        for (name, deployment) in objects("Deployment", in: all) {
            let pod = deployment.at("spec.template.spec")
            var used = Set<String>()
            for container in pod?["containers"]?.elements ?? [] {
                for source in container["envFrom"]?.elements ?? [] {
                    if let secret = source.at("secretRef.name")?.stringValue { used.insert(secret) }
                }
                for variable in container["env"]?.elements ?? [] {
                    if let secret = variable.at("valueFrom.secretKeyRef.name")?.stringValue { used.insert(secret) }
                }
            }
            for volume in pod?["volumes"]?.elements ?? [] {
                if let secret = volume.at("secret.secretName")?.stringValue { used.insert(secret) }
            }
            if name == "gateway" { #expect(used == ["social-login-gateway-nats"], "the gateway uses \(used.sorted())") }
            for secret in used { consumers[secret, default: []].insert(name) }
        }
        for secret in objects("Secret", in: all).keys {
            let users = (consumers[secret] ?? []).sorted()
            #expect(users.count == 1, "\(secret) is used by \(users)")
        }
        #expect(consumers["social-login-signing-key"] == Set(["token-issuer"]))
        #expect(consumers["social-login-provider-token-key"] == Set(["token-verifier"]))
        #expect(consumers["social-login-apple-key"] == Set(["token-verifier"]))
        // The admin-api: its admins' tokens file, its NATS seed and its role's password, each its own.
        for secret in ["social-login-admin-api-tokens", "social-login-admin-api-nats", "social-login-admin-api-database"] {
            #expect(consumers[secret] == Set(["admin-api"]), "\(secret) is used by \((consumers[secret] ?? []).sorted())")
        }
        // The webhook-relay: its endpoints (their signing secrets) and its NATS seed, and nothing else.
        for secret in ["social-login-webhook-relay-webhooks", "social-login-webhook-relay-nats"] {
            #expect(consumers[secret] == Set(["webhook-relay"]), "\(secret) is used by \((consumers[secret] ?? []).sorted())")
        }
        #expect(consumers.filter { $0.value.contains("webhook-relay") }.keys.sorted()
                == ["social-login-webhook-relay-nats", "social-login-webhook-relay-webhooks"])
    }

    @Test("the webhook-relay: its endpoints' Secret mounted as a directory and named by WEBHOOKS_FILE, public https destinations only, 128Mi at most")
    func webhookRelay() async throws {
        let all = try await documents()
        let secret = try #require(objects("Secret", in: all)["social-login-webhook-relay-webhooks"])
        // The placeholder is an empty list: no endpoint, no secret in the repository.
        #expect(secret.at("stringData")?["webhooks.json"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let deployment = try #require(objects("Deployment", in: all)["webhook-relay"])
        let pod = try #require(deployment.at("spec.template.spec"))
        let container = try #require(pod["containers"]?.elements.first)
        let env = Dictionary((container["env"]?.elements ?? []).compactMap { variable -> (String, String)? in
            guard let name = variable["name"]?.stringValue, let value = variable["value"]?.stringValue else { return nil }
            return (name, value)
        }, uniquingKeysWith: { first, _ in first })
        let volume = try #require((pod["volumes"]?.elements ?? []).first { $0.at("secret.secretName")?.stringValue == "social-login-webhook-relay-webhooks" })
        let mount = try #require((container["volumeMounts"]?.elements ?? []).first { $0["name"] == volume["name"] })
        #expect(mount["subPath"] == nil, "a subPath mount never sees the Secret change")
        #expect(mount["readOnly"] == .bool(true))
        let path = try #require(mount["mountPath"]?.stringValue)
        #expect(env["WEBHOOKS_FILE"] == path + "/webhooks.json", "WEBHOOKS_FILE \(env["WEBHOOKS_FILE"] ?? "unset")")
        #expect(env["NATS_NKEY_SEED_FILE"] != nil)
        // Production's destinations: https, public addresses.
        for name in ["WEBHOOK_ALLOW_HTTP", "WEBHOOK_ALLOW_PRIVATE_ADDRESSES"] {
            #expect(env[name] == nil || env[name] == "false", "\(name)=\(env[name] ?? "")")
        }
        #expect(container.at("resources.limits.memory")?.stringValue == "128Mi")
        #expect(container["ports"]?.elements.compactMap { $0["name"]?.stringValue } == ["management"], "the relay serves nothing but its management port")
        // No Service selects its pods: nothing calls it.
        for (name, service) in objects("Service", in: all) {
            if let selector = service.at("spec.selector") {
                #expect(!Self.selects(.object(["matchLabels": selector]), ["app.kubernetes.io/name": "webhook-relay"]), "the Service \(name) selects the relay")
            }
        }
    }

    @Test("the webhook-relay's network: in, the management port alone; out, port 443 to public addresses (never the private, shared or link-local ranges), besides NATS and DNS")
    func webhookRelayNetwork() async throws {
        let policies = objects("NetworkPolicy", in: try await documents())
        let relay = ["app.kubernetes.io/name": "webhook-relay"]
        for (name, policy) in policies where Self.selects(policy.at("spec.podSelector"), relay) {
            for rule in policy.at("spec.ingress")?.elements ?? [] {
                let ports = rule["ports"]?.elements ?? []
                #expect(!ports.isEmpty && ports.allSatisfy { $0["port"] == .integer(9090) }, "\(name) lets something reach the relay beyond its management port: \(rule)")
            }
        }
        let egress = try #require(policies["webhook-relay-egress"])
        #expect(egress.at("spec.podSelector.matchLabels") == .object(["app.kubernetes.io/name": .string("webhook-relay")]))
        let rules = egress.at("spec.egress")?.elements ?? []
        #expect(rules.count == 1)
        for rule in rules {
            #expect(rule["ports"]?.elements == [.object(["protocol": .string("TCP"), "port": .integer(443)])], "\(rule)")
            let blocks = (rule["to"]?.elements ?? []).compactMap { $0["ipBlock"] }
            #expect(blocks.count == rule["to"]?.elements.count, "webhook-relay-egress names pods or namespaces")
            let v4 = try #require(blocks.first { $0["cidr"]?.stringValue == "0.0.0.0/0" })
            let except = Set(v4["except"]?.elements.compactMap(\.stringValue) ?? [])
            #expect(except.isSuperset(of: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "127.0.0.0/8"]),
                    "\(except.sorted())")
            for block in blocks where block["cidr"]?.stringValue != "0.0.0.0/0" {
                #expect(block["cidr"]?.stringValue == "::/0", "\(block)")
                let except = Set(block["except"]?.elements.compactMap(\.stringValue) ?? [])
                #expect(except.isSuperset(of: ["fc00::/7", "fe80::/10", "::1/128"]), "\(except.sorted())")
            }
        }
        // Nothing else lets it out but the namespace-wide DNS and NATS rules: not PostgreSQL, not the providers'.
        for (name, policy) in policies where name != "webhook-relay-egress" && policy.at("spec.podSelector") != .object([:]) {
            #expect(!Self.selects(policy.at("spec.podSelector"), relay) || policy.at("spec.egress") == nil,
                    "\(name) lets the relay out elsewhere")
        }
    }

    /// Whether a label selector (`matchLabels`, `matchExpressions`; empty selects all) selects pods with `labels`.
    static func selects(_ selector: JSONValue?, _ labels: [String: String]) -> Bool {
        guard let selector else { return false }
        if case .object(let matchLabels) = selector["matchLabels"] {
            for (key, value) in matchLabels where labels[key] != value.stringValue { return false }
        }
        for expression in selector["matchExpressions"]?.elements ?? [] {
            let key = expression["key"]?.stringValue ?? ""
            let values = Set(expression["values"]?.elements.compactMap(\.stringValue) ?? [])
            switch expression["operator"]?.stringValue {
            case "In": if !values.contains(labels[key] ?? "\u{0}") { return false }
            case "NotIn": if let value = labels[key], values.contains(value) { return false }
            case "Exists": if labels[key] == nil { return false }
            case "DoesNotExist": if labels[key] != nil { return false }
            default: return false
            }
        }
        return true
    }

    @Test("the admin-api has its own Secret for its admins' tokens, mounted as a directory (an edited Secret reaches the pod) and named by ADMIN_TOKENS_FILE")
    func adminAPITokensSecret() async throws {
        let all = try await documents()
        let secret = try #require(objects("Secret", in: all)["social-login-admin-api-tokens"])
        let tokens = try #require(secret.at("stringData.tokens")?.stringValue, "no key tokens")
        // The placeholder names no admin (every line a comment), and never holds a token itself.
        #expect(tokens.split(separator: "\n").allSatisfy { $0.hasPrefix("#") }, "\(tokens)")
        let deployment = try #require(objects("Deployment", in: all)["admin-api"])
        let pod = try #require(deployment.at("spec.template.spec"))
        let container = try #require(pod["containers"]?.elements.first)
        let env = Dictionary((container["env"]?.elements ?? []).compactMap { variable -> (String, String)? in
            guard let name = variable["name"]?.stringValue, let value = variable["value"]?.stringValue else { return nil }
            return (name, value)
        }, uniquingKeysWith: { first, _ in first })
        let volume = try #require((pod["volumes"]?.elements ?? []).first { $0.at("secret.secretName")?.stringValue == "social-login-admin-api-tokens" })
        let mount = try #require((container["volumeMounts"]?.elements ?? []).first { $0["name"] == volume["name"] })
        #expect(mount["subPath"] == nil, "a subPath mount never sees the Secret change")
        #expect(mount["readOnly"] == .bool(true))
        let path = try #require(mount["mountPath"]?.stringValue)
        #expect(env["ADMIN_TOKENS_FILE"] == path + "/tokens", "ADMIN_TOKENS_FILE \(env["ADMIN_TOKENS_FILE"] ?? "unset")")
        // It listens on every address of its pod, on its own port; its role and seed are its own.
        #expect(env["ADMIN_HOST"] == "0.0.0.0" && env["ADMIN_PORT"] == "8081")
        #expect(env["DATABASE_URL"]?.hasPrefix("postgres://admin_api@") == true, "\(env["DATABASE_URL"] ?? "unset")")
        #expect(env["DATABASE_PASSWORD_FILE"] != nil && env["NATS_NKEY_SEED_FILE"] != nil)
    }

    @Test("the admin-api is not exposed: a ClusterIP Service of its own, no Ingress or route to it, no other Service selecting its pods")
    func adminAPINotExposed() async throws {
        let all = try await documents()
        let labels = ["app.kubernetes.io/name": "admin-api"]
        let services = objects("Service", in: all)
        let service = try #require(services["admin-api"])
        #expect(service.at("spec.type")?.stringValue == "ClusterIP")
        #expect(service.at("spec.externalIPs") == nil && service.at("spec.loadBalancerIP") == nil)
        for port in service.at("spec.ports")?.elements ?? [] {
            #expect(port["nodePort"] == nil, "admin-api: a nodePort")
        }
        for (name, other) in services where name != "admin-api" {
            if let selector = other.at("spec.selector") {
                #expect(!Self.selects(.object(["matchLabels": selector]), labels), "the Service \(name) selects the admin-api's pods")
            }
        }
        // No Ingress (nor a Gateway API route) of these manifests names the admin-api's Service.
        for (file, document) in all where ["Ingress", "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute"].contains(document["kind"]?.stringValue ?? "") {
            #expect(!"\(document)".contains("admin-api"), "\(file): \(document["kind"]?.stringValue ?? "") routes to the admin-api")
        }
    }

    @Test("a NetworkPolicy lets only the namespace's operator pods (role=operator) reach the admin-api's port, and lets them out to it")
    func adminAPIOperatorsOnly() async throws {
        let policies = objects("NetworkPolicy", in: try await documents())
        let admin = ["app.kubernetes.io/name": "admin-api"]
        var allowed = 0
        for (name, policy) in policies where Self.selects(policy.at("spec.podSelector"), admin) {
            for rule in policy.at("spec.ingress")?.elements ?? [] {
                let ports = rule["ports"]?.elements ?? []
                // A rule without ports opens every port, the admin one too.
                let opensAdmin = ports.isEmpty || ports.contains { $0["port"] == .integer(8081) || $0["port"]?.stringValue == "admin" }
                guard opensAdmin else { continue }
                let peers = rule["from"]?.elements ?? []
                #expect(!peers.isEmpty, "\(name) lets anyone reach the admin-api")
                for peer in peers {
                    #expect(peer["namespaceSelector"] == nil && peer["ipBlock"] == nil, "\(name) lets another namespace or addresses reach the admin-api: \(peer)")
                    #expect(peer.at("podSelector.matchLabels") == .object(["role": .string("operator")]), "\(name): \(peer)")
                }
                allowed += 1
            }
        }
        #expect(allowed == 1, "\(allowed) rules open the admin-api's port")
        // The operator pods, closed by the default deny like every pod here, may go out to it.
        let operators = ["role": "operator"]
        let egress = policies.values.filter { Self.selects($0.at("spec.podSelector"), operators) }.flatMap { $0.at("spec.egress")?.elements ?? [] }
        #expect(egress.contains { rule in
            (rule["to"]?.elements ?? []).contains { Self.selects($0["podSelector"], admin) && $0["namespaceSelector"] == nil }
                && (rule["ports"]?.elements ?? []).contains { $0["port"] == .integer(8081) }
        }, "no egress from the operator pods to the admin-api")
        // And to PostgreSQL, its own role's database.
        let postgres = try #require(policies["postgres-egress"])
        #expect(Self.selects(postgres.at("spec.podSelector"), admin), "the admin-api cannot reach PostgreSQL")
    }

    @Test("each service has a PodDisruptionBudget, topology spread, probes on the management port, and a grace period beyond its preStop")
    func availability() async throws {
        let all = try await documents()
        let deployments = objects("Deployment", in: all)
        let budgets = objects("PodDisruptionBudget", in: all).values
        for (name, deployment) in deployments {
            let labels = deployment.at("spec.template.metadata.labels")
            let matching = budgets.filter { budget in
                guard case .object(let selector) = budget.at("spec.selector.matchLabels"), !selector.isEmpty else { return false }
                return selector.allSatisfy { labels?[$0.key] == $0.value }
            }
            #expect(matching.count == 1, "\(name): \(matching.count) PodDisruptionBudgets")
            let pod = try #require(deployment.at("spec.template.spec"), "\(name): no pod spec")
            let keys = Set((pod["topologySpreadConstraints"]?.elements ?? []).compactMap { $0["topologyKey"]?.stringValue })
            #expect(keys == Set(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]), "\(name): spread over \(keys.sorted())")
            let container = try #require(pod["containers"]?.elements.first, "\(name): no container")
            let ports = (container["ports"]?.elements ?? []).compactMap { $0["name"]?.stringValue }
            #expect(ports.contains("management"), "\(name): no container port named management")
            for probe in ["startupProbe", "readinessProbe", "livenessProbe"] {
                #expect(container.at("\(probe).httpGet.port")?.stringValue == "management", "\(name): \(probe) is not on the management port")
            }
            #expect(container.at("readinessProbe.httpGet.path")?.stringValue == "/readyz", "\(name): readiness is not /readyz")
            #expect(container.at("livenessProbe.httpGet.path")?.stringValue == "/healthz", "\(name): liveness is not /healthz")
            guard case .integer(let grace) = pod["terminationGracePeriodSeconds"] else {
                Issue.record("\(name): no terminationGracePeriodSeconds")
                continue
            }
            var preStop: Int64 = 0
            if case .integer(let seconds) = container.at("lifecycle.preStop.sleep.seconds") { preStop = seconds }
            #expect(grace >= preStop + 20, "\(name): a grace period of \(grace) s for a preStop of \(preStop) s and the drain")
        }
        let gateway = deployments["gateway"]?.at("spec.template.spec")?["containers"]?.elements.first
        if case .integer(let seconds) = gateway?.at("lifecycle.preStop.sleep.seconds") {
            #expect(seconds >= 5, "the gateway leaves the Service's endpoints only \(seconds) s before SIGTERM")
        } else {
            Issue.record("the gateway has no preStop sleep")
        }
    }

    @Test("a NetworkPolicy denies everything by default; only the gateway takes traffic from anywhere")
    func networkPolicies() async throws {
        let policies = objects("NetworkPolicy", in: try await documents())
        let denyAll = policies.values.filter {
            $0.at("spec.podSelector") == .object([:]) && $0.at("spec.ingress") == nil && $0.at("spec.egress") == nil
        }
        #expect(denyAll.count == 1, "\(denyAll.count) default-deny policies")
        if let policy = denyAll.first {
            #expect(Set(policy.at("spec.policyTypes")?.elements.compactMap(\.stringValue) ?? []) == Set(["Ingress", "Egress"]))
        }
        for (name, policy) in policies {
            for rule in policy.at("spec.ingress")?.elements ?? [] where rule["from"] == nil {
                #expect(policy.at("spec.podSelector.matchLabels")?["app.kubernetes.io/name"]?.stringValue == "gateway",
                        "\(name) lets anyone in to pods other than the gateway's")
            }
        }
    }

    @Test("behind its ingress the per-address rate limit counts clients: proxies trusted, only the ingress reaches the API")
    func rateLimitBehindIngress() async throws {
        let all = try await documents()
        let config = try #require(objects("ConfigMap", in: all)["social-login-config"]?["data"])
        let rate = Int(config["RATE_LIMIT_RPS"]?.stringValue ?? "10") ?? -1
        guard rate != 0 else { return }  // No per-address limit: nothing to get wrong.
        let proxies = (config["TRUSTED_PROXIES"]?.stringValue ?? "").split(separator: ",").map(String.init)
        #expect(!proxies.isEmpty, "a per-address limit behind an ingress with no trusted proxy is one bucket for every user")
        for entry in proxies { #expect(AddressRange(entry) != nil, "TRUSTED_PROXIES entry \(entry) is not a CIDR block") }
        // Whoever reaches the port may name any client in X-Forwarded-For: only the ingress may reach it.
        let policy = try #require(objects("NetworkPolicy", in: all)["gateway-ingress"])
        let rules = policy.at("spec.ingress")?.elements ?? []
        #expect(!rules.isEmpty)
        for rule in rules {
            let from = rule["from"]?.elements ?? []
            #expect(from.count > 0, "gateway-ingress lets anyone reach the API and forge X-Forwarded-For")
        }
        #expect(config["GATEWAY_CONNECTIONS_PER_ADDRESS"]?.stringValue == "0", "every connection comes from an ingress pod")
    }

    @Test("every Secret and ConfigMap a Deployment uses is defined")
    func referencesResolve() async throws {
        let all = try await documents()
        let secrets = Set(objects("Secret", in: all).keys)
        let configMaps = Set(objects("ConfigMap", in: all).keys)
        for (name, deployment) in objects("Deployment", in: all) {
            let pod = deployment.at("spec.template.spec")
            for container in pod?["containers"]?.elements ?? [] {
                for source in container["envFrom"]?.elements ?? [] {
                    if let map = source.at("configMapRef.name")?.stringValue { #expect(configMaps.contains(map), "\(name): \(map)") }
                    if let secret = source.at("secretRef.name")?.stringValue { #expect(secrets.contains(secret), "\(name): \(secret)") }
                }
                for variable in container["env"]?.elements ?? [] {
                    if let secret = variable.at("valueFrom.secretKeyRef.name")?.stringValue {
                        #expect(secrets.contains(secret), "\(name): secret \(secret)")
                    }
                }
            }
            for volume in pod?["volumes"]?.elements ?? [] {
                if let secret = volume.at("secret.secretName")?.stringValue { #expect(secrets.contains(secret), "\(name): \(secret)") }
            }
        }
    }
}
