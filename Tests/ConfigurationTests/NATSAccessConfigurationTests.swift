import Crypto
import Foundation
import Gateway
import Messaging
import Runtime
import Testing
import TokenIssuer

/// NATS_NKEY_SEED_FILE and NATS_TLS_*: what each service reads, and what stops it at start.
@Suite("NATS identity and TLS settings")
struct NATSAccessConfigurationTests {
    @Test("a seed file gives the identity's public key and the file; each service has its own inbox prefix")
    func seedFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try NKey.generateUser()
        let seed = directory.appendingPathComponent("gateway.nk")
        try Data((key.seed + "\n").utf8).write(to: seed)

        let gateway = try GatewayConfiguration(environment: EnvironmentReader(["NATS_NKEY_SEED_FILE": seed.path]))
        #expect(gateway.natsAccess.nkey?.publicKey == key.publicKey)
        #expect(gateway.natsAccess.nkey?.seedFile == seed.path)
        #expect(gateway.natsAccess.inboxPrefix == "_INBOX_gateway")
        #expect(gateway.natsAccess.tls == nil)
        let issuer = try TokenIssuerConfiguration(environment: EnvironmentReader([:]))
        #expect(issuer.natsAccess.nkey == nil)
        #expect(issuer.natsAccess.inboxPrefix == "_INBOX_token-issuer")

        // Not a user seed (a public key, garbage, a missing file): stops at start, naming the
        // variable and never the contents.
        let publicKey = directory.appendingPathComponent("public.nk")
        try Data(key.publicKey.utf8).write(to: publicKey)
        for path in [publicKey.path, directory.appendingPathComponent("missing").path, directory.path] {
            #expect { try GatewayConfiguration(environment: EnvironmentReader(["NATS_NKEY_SEED_FILE": path])) }
                throws: { ($0 as? ConfigurationError).map { $0.variable == "NATS_NKEY_SEED_FILE" && !$0.description.contains(key.publicKey) } ?? false }
        }
        var corrupted = Array(key.seed.utf8)
        corrupted[20] = corrupted[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try Data(corrupted).write(to: publicKey)
        #expect { try GatewayConfiguration(environment: EnvironmentReader(["NATS_NKEY_SEED_FILE": publicKey.path])) }
            throws: { ($0 as? ConfigurationError)?.variable == "NATS_NKEY_SEED_FILE" }
    }

    @Test("TLS: a CA file alone turns it on; a certificate needs its key; unreadable files stop the service")
    func tls() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nats-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ca.pem")
        try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: file)

        let withCA = try GatewayConfiguration(environment: EnvironmentReader(["NATS_TLS_CA_FILE": file.path]))
        #expect(withCA.natsAccess.tls?.caFile == file.path)
        #expect(withCA.natsAccess.tls?.certificateFile == nil)
        let pair = try GatewayConfiguration(environment: EnvironmentReader(["NATS_TLS_CERT_FILE": file.path, "NATS_TLS_KEY_FILE": file.path]))
        #expect(pair.natsAccess.tls?.certificateFile == file.path && pair.natsAccess.tls?.keyFile == file.path)
        #expect { try GatewayConfiguration(environment: EnvironmentReader(["NATS_TLS_CERT_FILE": file.path])) }
            throws: { ($0 as? ConfigurationError)?.variable == "NATS_TLS_KEY_FILE" }
        #expect { try GatewayConfiguration(environment: EnvironmentReader(["NATS_TLS_KEY_FILE": file.path])) }
            throws: { ($0 as? ConfigurationError)?.variable == "NATS_TLS_CERT_FILE" }
        #expect { try GatewayConfiguration(environment: EnvironmentReader(["NATS_TLS_CA_FILE": directory.appendingPathComponent("nope").path])) }
            throws: { ($0 as? ConfigurationError)?.variable == "NATS_TLS_CA_FILE" }
    }
}
