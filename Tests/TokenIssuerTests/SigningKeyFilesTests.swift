import Collections
import Crypto
import Foundation
import Runtime
import Testing
@testable import TokenIssuer

/// Reading `SIGNING_KEY_FILE`: files and directories of `*.pem` keys, as a mounted Kubernetes Secret lays
/// them out; anything but a P-256 or Ed25519 private key is refused, naming the file and nothing of it.
@Suite("Signing key files")
struct SigningKeyFilesTests {
    private let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("signing-key-files-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func write(_ text: String, _ name: String, in folder: URL? = nil) throws -> URL {
        let file = (folder ?? directory).appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test("a Secret's directory: the *.pem files behind its ..data links, in name order; other files skipped")
    func kubernetesLayout() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // What the kubelet makes: a timestamped folder, a ..data link to it, and a link per key.
        let data = directory.appendingPathComponent("..2026_11_30_12_00_00.123")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let p256 = try PrivateKey.generateP256()
        let ed25519 = try PrivateKey.generateEd25519()
        _ = try write(ed25519.pemRepresentation, "2027-01.pem", in: data)
        _ = try write(p256.pemRepresentation, "2026-12.pem", in: data)
        _ = try write("a note", "README", in: data)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("..data").path, withDestinationPath: data.lastPathComponent)
        for name in ["2027-01.pem", "2026-12.pem", "README"] {
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(name).path, withDestinationPath: "..data/\(name)")
        }
        let keys = try SigningKeys.readKeyFiles([directory.path])
        #expect(keys.map(\.kid) == [try SigningKey(privateKey: p256, activatesAt: .distantPast, retiredAt: nil).kid,
                                    try SigningKey(privateKey: ed25519, activatesAt: .distantPast, retiredAt: nil).kid])
        #expect(keys.map { $0.publicJWK.alg } == ["ES256", "EdDSA"])
    }

    @Test("a file that is not a P-256 or Ed25519 private key is refused, naming the file and none of its contents",
          arguments: ["rsa", "public", "garbage"])
    func refused(_ kind: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let text: String
        switch kind {
        // Made on a thread of its own: an RSA key takes long enough to hold one of Swift's two
        // cooperative threads while every other suite starts.
        case "rsa": text = try await BlockingCall.run { try PrivateKey.generateRSA(bits: 2048).pemRepresentation }
        case "public": text = try PrivateKey.generateP256().publicKey.pemRepresentation
        default: text = "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n"
        }
        let file = try write(text, "key.pem")
        do {
            _ = try SigningKeys.readKeyFiles([file.path])
            Issue.record("\(kind) was accepted")
        } catch {
            #expect(error.variable == "SIGNING_KEY_FILE")
            #expect(error.problem.contains(file.path))
            let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }
            #expect(!body.contains { error.description.contains($0) }, "the error shows the file's contents")
        }
    }

    @Test("a path that does not exist, or a directory without *.pem files, is refused")
    func nothingToRead() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try write("a note", "README")
        #expect(throws: ConfigurationError.self) { try SigningKeys.readKeyFiles([directory.path]) }
        #expect(throws: ConfigurationError.self) { try SigningKeys.readKeyFiles([directory.appendingPathComponent("missing.pem").path]) }
    }

    @Test("a directory named *.pem, or a file over the size limit, is refused without being read as a key")
    func notAKeyFile() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("folder.pem")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(throws: ConfigurationError.self) { try SigningKeys.readKeyFiles([directory.path]) }
        try FileManager.default.removeItem(at: folder)
        let big = try write(try PrivateKey.generateP256().pemRepresentation + String(repeating: "\n", count: SigningKeys.maxFileSize), "big.pem")
        #expect { try SigningKeys.readKeyFiles([big.path]) } throws: { ($0 as? ConfigurationError)?.problem.contains("regular file of at most") == true }
    }
}
