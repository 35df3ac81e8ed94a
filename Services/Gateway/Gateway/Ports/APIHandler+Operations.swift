import Contracts
import Foundation
import HTTPAPI
import HTTPServer
import Management

extension APIHandler {
    static let operationRoutes: [Route] = [
        route("GET", "/.well-known/jwks.json") { handler, _ throws(ServiceFailure) in try handler.jwks() },
        route("GET", "/healthz") { _, _ in .json(["status": "ok"], status: 200) },
        route("GET", "/readyz") { handler, context throws(ServiceFailure) in
            switch context.request.query["services"] {
            case nil: return ManagementServer.readinessResponse(handler.readiness)
            // Anyone may ask, so the pings go out at most once a second, whoever asks how often.
            case "all": return await handler.servicesReadinessAnswer.get(maxAge: .seconds(1)) { await handler.servicesReadiness() }
            default: throw .invalidRequest("The query parameter services takes only the value all.")
            }
        },
        route("GET", "/openapi.yaml") { _, _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/yaml")], body: openAPIDocument)
        },
    ]

    /// `openapi.yaml`, read once from the gateway's resources.
    static let openAPIDocument: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
              let data = try? Data(contentsOf: url) else { return [] }
        return Array(data)
    }()

    /// The public keys of access tokens, for anyone who verifies them: this gateway's copy, which follows the issuer.
    func jwks() throws(ServiceFailure) -> HTTPResponse {
        let set = try accessTokens.keys.published()
        return .json(set, status: 200, headers: [("Cache-Control", "public, max-age=300")])
    }

    /// `/readyz?services=all`, for scripts and smoke tests that want the whole stack up, never for a load
    /// balancer's probe: 200 when this gateway is ready and every service answers a ping, else 503 naming
    /// what is missing.
    func servicesReadiness() async -> HTTPResponse {
        guard let client, client.isConnected else {
            return .json(["status": "unavailable", "nats": "disconnected"], status: 503, headers: [("Retry-After", "1")])
        }
        let groups = [QueueGroups.tokenVerifier, QueueGroups.memberService, QueueGroups.tokenIssuer]
        let answers = await withTaskGroup(of: (String, Bool).self) { group in
            for queueGroup in groups {
                group.addTask {
                    let ok = (try? await client.call(Endpoints.ping(queueGroup), PingRequest(), timeout: .seconds(1), retries: 0)) != nil
                    return (queueGroup, ok)
                }
            }
            var answers: [String: String] = ["nats": "connected"]
            for await (queueGroup, ok) in group {
                answers[queueGroup] = ok ? "ok" : "unavailable"
            }
            return answers
        }
        let ready = readiness.report.ready && answers.values.allSatisfy { $0 == "ok" || $0 == "connected" }
        var body = answers
        body["status"] = ready ? "ready" : "unavailable"
        return .json(body, status: ready ? 200 : 503, headers: ready ? [] : [("Retry-After", "1")])
    }
}
