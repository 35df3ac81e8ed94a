import Crypto
import DevIDP
import Foundation
import Gateway
import Logging
import MemberService
import Runtime
import Testing
import TokenIssuer
import TokenVerifier

/// `docs/configuration.md` against the code: every variable a service's configuration reader asks for is
/// documented for that service, and every variable documented for a service is one it asks for. Script
/// variables are documented for the scripts that read them.
@Suite("Configuration reference (docs/configuration.md)")
struct ConfigurationReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let services = ["gateway", "token-verifier", "member-service", "token-issuer", "dev-idp"]

    /// One documented variable: its table row's cells.
    struct Entry {
        let name: String
        let readers: [String]
        let cells: [String]
    }

    /// Every table row of the reference whose first cell is a variable name in backticks.
    static func entries() throws -> [Entry] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var entries: [Entry] = []
        for line in text.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.replacingOccurrences(of: "\\|", with: "\u{1}").split(separator: "|", omittingEmptySubsequences: false)
                .dropFirst().dropLast().map { $0.replacingOccurrences(of: "\u{1}", with: "|").trimmingCharacters(in: .whitespaces) }
            guard let first = cells.first, first.hasPrefix("`"), first.hasSuffix("`"), first.count > 2 else { continue }
            let name = String(first.dropFirst().dropLast())
            guard name.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) else { continue }
            let readers = cells.count > 1
                ? cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
                : []
            entries.append(Entry(name: name, readers: readers, cells: cells))
        }
        return entries
    }

    /// An environment that enables every branch of every reader: all providers, Apple code exchange, key files.
    static func everything(in directory: URL) throws -> [String: String] {
        let appleKey = directory.appendingPathComponent("AuthKey.p8")
        let signingKey = directory.appendingPathComponent("signing-key.pem")
        try Data(try PrivateKey.generateP256().pemRepresentation.utf8).write(to: appleKey)
        try Data(try PrivateKey.generateP256().pemRepresentation.utf8).write(to: signingKey)
        return [
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
        let documented = Set(try Self.entries().filter { $0.readers.contains(service) }.map(\.name))
        #expect(read.subtracting(documented).isEmpty, "\(service) reads but docs/configuration.md does not list for it: \(read.subtracting(documented).sorted())")
        #expect(documented.subtracting(read).isEmpty, "docs/configuration.md lists for \(service) but it never reads: \(documented.subtracting(read).sorted())")
    }

    @Test("every row names who reads it, a default and what a bad value does; no variable is listed twice")
    func rowsAreComplete() throws {
        let entries = try Self.entries()
        #expect(entries.count > 40, "too few variables parsed: \(entries.count)")
        var seen: Set<String> = []
        for entry in entries {
            #expect(seen.insert(entry.name).inserted, "\(entry.name) is listed twice")
            #expect(entry.cells.count == 4 && entry.cells.allSatisfy { !$0.isEmpty }, "\(entry.name): a row has 4 filled cells: \(entry.cells)")
            #expect(!entry.readers.isEmpty, "\(entry.name) names no reader")
        }
    }

    @Test("a script variable is read by every script its row names")
    func scriptVariables() throws {
        for entry in try Self.entries() where !entry.readers.allSatisfy(Self.services.contains) {
            for script in entry.readers where !Self.services.contains(script) {
                let url = Self.root.appendingPathComponent(script)
                guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                    Issue.record("\(entry.name): '\(script)' is neither a service nor a file of the repository")
                    continue
                }
                #expect(text.contains(entry.name), "\(script) does not read \(entry.name)")
            }
        }
    }
}
