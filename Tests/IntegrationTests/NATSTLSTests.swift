import Foundation
import Logging
import NATS
import Testing
import TestSupport

/// NATS_TLS_*: with a CA file the services speak TLS to NATS and check the server's certificate.
@Suite("NATS over TLS")
struct NATSTLSTests {
    /// A CA and a server certificate for 127.0.0.1 signed by it, made with the openssl command.
    static func certificates(in directory: URL) throws {
        let script = """
            set -e
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=test-ca \
              -keyout ca.key -out ca.pem 2>/dev/null
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
              -keyout server.key -out server.csr 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1\\n' >san.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile san.ext \
              -out server.pem 2>/dev/null
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=other-ca \
              -keyout other.key -out other.pem 2>/dev/null
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = directory
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl could not make the test certificates")
    }

    @Test("a client that trusts the server's CA connects and is answered; without TLS, or trusting another CA, it cannot")
    func tlsToNATS() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nats-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.certificates(in: directory)
        let server = try await TestNATSServer.start(tls: (directory.appendingPathComponent("server.pem").path,
                                                          directory.appendingPathComponent("server.key").path))
        defer { server.stop() }
        let logger = Logger(label: "nats-tls", level: .critical)
        func configuration(_ tls: NATSConnection.TLS?) -> NATSConnection.Configuration {
            var configuration = TestIdentities.configuration(url: server.url, name: "tls-test")
            configuration.access.tls = tls
            configuration.maxReconnect = 0
            return configuration
        }

        let connection = try await NATSConnection.connect(
            configuration(.init(caFile: directory.appendingPathComponent("ca.pem").path)), logger: logger)
        let subscription = try connection.subscribe("tls.echo")
        Task { for await message in subscription { try? connection.respond(to: message, message.payload) } }
        try await connection.flush(timeout: .seconds(5))
        let reply = try await connection.request("tls.echo", Array("over tls".utf8), timeout: .seconds(5))
        #expect(String(decoding: reply.payload, as: UTF8.self) == "over tls")
        await connection.drainAndClose()

        await #expect(throws: NATSError.self) { try await NATSConnection.connect(configuration(nil), logger: logger) }
        await #expect(throws: NATSError.self) {
            try await NATSConnection.connect(configuration(.init(caFile: directory.appendingPathComponent("other.pem").path)), logger: logger)
        }
    }
}
