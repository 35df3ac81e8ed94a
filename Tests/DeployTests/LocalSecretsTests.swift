import Foundation
import Testing
import TestSupport

/// The local scripts (deploy/local/lib.sh, which up and test use) write every secret 0600 and give each one
/// only to the service that reads it.
@Suite("Local secrets: 0600, each to its one reader")
struct LocalSecretsTests {
    /// The secrets a service's environment may carry, by name.
    static let secretVariables = ["PROVIDER_TOKEN_KEY", "PROVIDER_TOKEN_KEY_FILE", "NAVER_CLIENT_SECRET", "NAVER_CLIENT_SECRET_FILE",
                                  "APPLE_PRIVATE_KEY_FILE", "DEV_IDP_NAVER_CLIENT_SECRET", "DEV_IDP_APPLE_KEY_FILE", "ADMIN_TOKENS_FILE",
                                  "WEBHOOKS_FILE"]

    @Test("the provider-token key, Naver's secret, the Apple key and the admins' tokens file are files only their owner reads, and each reaches only its service; the webhooks file the relay alone")
    func scoped() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("local-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let names = Self.secretVariables.joined(separator: " ")
        let script = """
            set -euo pipefail
            unset PROVIDER_TOKEN_KEY NAVER_CLIENT_SECRET ADMIN_TOKENS_FILE
            # Given from outside (deploy/local/up starts a webhook-relay when it is set).
            export WEBHOOKS_FILE=/somewhere/webhooks.json
            umask 022
            source deploy/local/lib.sh
            provider_token_key_file "$1"
            dev_idp_environment http://127.0.0.1:9 "$1"
            dev_admin_tokens_file "$1"
            echo "token $ADMIN_TOKEN $(printf '%s' "$ADMIN_TOKEN" | sha256sum | cut -d' ' -f1)"
            grep -v '^#' "$1/admin-tokens" | sed 's/^/admins /'
            for file in "$1"/*; do echo "mode $(stat -c %a "$file") $(basename "$file")"; done
            for service in gateway token-verifier member-service token-issuer admin-api webhook-relay dev-idp; do
              (scope_secrets "$service"; line="env $service"; for name in \(names); do [ -n "${!name:-}" ] && line+=" $name"; done; echo "$line")
            done
            """
        let result = try await runProcess("/bin/bash", ["-c", script, "bash", directory.path], workingDirectory: DeployFiles.root.path)
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        let modes = lines.filter { $0.hasPrefix("mode ") }
        #expect(Set(modes.map { $0.split(separator: " ")[2] }) == ["provider-token.key", "naver-client-secret", "apple-key.p8",
                                                                    "admin-token", "admin-tokens"])
        for line in modes { #expect(line.hasPrefix("mode 600 "), "\(line)") }
        let environments = Dictionary(uniqueKeysWithValues: lines.filter { $0.hasPrefix("env ") }.map { line in
            let words = line.split(separator: " ").map(String.init)
            return (words[1], Set(words.dropFirst(2)))
        })
        #expect(environments["token-verifier"] == ["PROVIDER_TOKEN_KEY_FILE", "NAVER_CLIENT_SECRET_FILE", "APPLE_PRIVATE_KEY_FILE"])
        #expect(environments["dev-idp"] == ["DEV_IDP_NAVER_CLIENT_SECRET", "DEV_IDP_APPLE_KEY_FILE"])
        #expect(environments["admin-api"] == ["ADMIN_TOKENS_FILE"])
        // The endpoints' signing secrets: the webhook-relay's alone.
        #expect(environments["webhook-relay"] == ["WEBHOOKS_FILE"])
        // deploy/local/up's development admin: a random 256-bit token, and only its SHA-256 in the file.
        let token = try #require(lines.first { $0.hasPrefix("token ") }?.split(separator: " ").map(String.init))
        #expect(token.count == 3 && token[1].count == 64 && token[1].allSatisfy(\.isHexDigit), "\(token)")
        #expect(lines.filter { $0.hasPrefix("admins ") } == ["admins dev-admin:\(token.last ?? "")"])
        for service in ["gateway", "member-service", "token-issuer"] {
            #expect(environments[service] == [], "\(service) gets \(environments[service] ?? [])")
        }
    }
}
