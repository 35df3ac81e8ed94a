import AdminAPI
import Crypto
import DevIDP
import Foundation
import Gateway
import Logging
import MemberService
import Runtime
import Testing
import TestSupport
import TokenIssuer
import TokenVerifier
import WebhookRelay

/// `docs/configuration.md` against the code: every variable a service's configuration reader asks for is
/// documented for that service, and every variable documented for a service is one it asks for. Script
/// variables are documented for the scripts that read them.
@Suite("Configuration reference (docs/configuration.md)")
struct ConfigurationReferenceTests {
    static let services = ConfigurationReference.services.sorted()

    /// An environment that enables every branch of every reader: all providers, Apple code exchange, key files,
    /// a webhooks file (the relay's, with no endpoint).
    static func everything(in directory: URL) throws -> [String: String] {
        let appleKey = directory.appendingPathComponent("AuthKey.p8")
        let signingKey = directory.appendingPathComponent("signing-key.pem")
        let webhooks = directory.appendingPathComponent("webhooks.json")
        try Data(try PrivateKey.generateP256().pemRepresentation.utf8).write(to: appleKey)
        try Data(try PrivateKey.generateP256().pemRepresentation.utf8).write(to: signingKey)
        try Data("[]".utf8).write(to: webhooks)
        return [
            "WEBHOOKS_FILE": webhooks.path,
            "GOOGLE_CLIENT_IDS": "google-client", "APPLE_CLIENT_IDS": "com.example.app", "KAKAO_CLIENT_IDS": "kakao-app",
            "NAVER_CLIENT_ID": "naver-client", "NAVER_CLIENT_SECRET": "naver-secret",
            "APPLE_TEAM_ID": "TEAM000001", "APPLE_KEY_ID": "KEY0000001", "APPLE_PRIVATE_KEY_FILE": appleKey.path,
            "SIGNING_KEY_FILE": signingKey.path,
        ]
    }

    /// The names `service`'s configuration (and its logger) ask for when started with `values`.
    static func variablesRead(by service: String, _ values: [String: String]) throws -> Set<String> {
        let log = EnvironmentReader.ReadLog()
        let environment = EnvironmentReader(values, log: log)
        _ = try Logger.fromEnvironment(label: service, environment)
        switch service {
        case "gateway": _ = try GatewayConfiguration(environment: environment)
        case "token-verifier": _ = try TokenVerifierConfiguration(environment: environment)
        case "member-service": _ = try MemberServiceConfiguration(environment: environment)
        case "token-issuer": _ = try TokenIssuerConfiguration(environment: environment)
        case "admin-api": _ = try AdminAPIConfiguration(environment: environment)
        case "webhook-relay": _ = try WebhookRelayConfiguration(environment: environment)
        case "dev-idp": _ = try DevIDPConfiguration(environment: environment)
        default: Issue.record("unknown service \(service)")
        }
        return log.variables
    }

    @Test("each service's documented variables are exactly those its configuration reads", arguments: services)
    func serviceVariables(_ service: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("configuration-reference-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let read = try Self.variablesRead(by: service, try Self.everything(in: directory))
        let documented = try ConfigurationReference.load().variables(readBy: service)
        #expect(read.subtracting(documented).isEmpty, "\(service) reads but docs/configuration.md does not list for it: \(read.subtracting(documented).sorted())")
        #expect(documented.subtracting(read).isEmpty, "docs/configuration.md lists for \(service) but it never reads: \(documented.subtracting(read).sorted())")
    }

    @Test("every row names who reads it, a default and what a bad value does; no variable is listed twice")
    func rowsAreComplete() throws {
        let reference = try ConfigurationReference.load()
        #expect(reference.rows.count > 40, "too few variables parsed: \(reference.rows.count)")
        #expect(reference.unclearRows.isEmpty, "rows that mix services and scripts, or name no reader: \(reference.unclearRows.map(\.name))")
        var seen: Set<String> = []
        for row in reference.rows {
            #expect(seen.insert(row.name).inserted, "\(row.name) is listed twice")
            #expect(row.cells.count == 4 && row.cells.allSatisfy { !$0.isEmpty }, "\(row.name): a row has 4 filled cells: \(row.cells)")
        }
    }

    @Test("a script variable is read by every script its row names")
    func scriptVariables() throws {
        for row in try ConfigurationReference.load().scriptRows {
            for script in row.readers {
                let url = ConfigurationReference.repositoryRoot.appendingPathComponent(script)
                guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                    Issue.record("\(row.name): '\(script)' is neither a service nor a file of the repository")
                    continue
                }
                #expect(text.contains(row.name), "\(script) does not read \(row.name)")
            }
        }
    }
}
