import HTTPServer
import JSON
import Testing

/// deploy/k8s: every manifest parses; each service has a Deployment with probes, resources and
/// a non-root security context, a HorizontalPodAutoscaler and a PodDisruptionBudget; each Secret
/// reaches one service; a NetworkPolicy denies by default; references resolve.
@Suite("Kubernetes manifests")
struct KubernetesManifestTests {
    static let services = ["gateway", "token-verifier", "member-service", "token-issuer"]

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
            #expect(deployment.at("spec.replicas") == nil, "\(name): replicas fights the HPA")
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

    @Test("each Deployment has a HorizontalPodAutoscaler; the gateway has a Service")
    func autoscalersAndServices() async throws {
        let all = try await documents()
        let deployments = objects("Deployment", in: all)
        let autoscalers = objects("HorizontalPodAutoscaler", in: all).values
        for name in deployments.keys {
            let matching = autoscalers.filter {
                $0.at("spec.scaleTargetRef.kind")?.stringValue == "Deployment" && $0.at("spec.scaleTargetRef.name")?.stringValue == name
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
