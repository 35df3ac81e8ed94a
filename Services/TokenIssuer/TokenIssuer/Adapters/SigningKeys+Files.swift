import Crypto
import Foundation
import Runtime

extension SigningKeys {
    /// The largest key file read: a P-256 or Ed25519 key in PEM is a few hundred bytes.
    static let maxFileSize = 16_384

    /// The keys in `paths` (`SIGNING_KEY_FILE`), in order: each path a PEM file, or a directory whose
    /// `*.pem` files are taken in name order (a mounted Kubernetes Secret is such a directory; its
    /// hidden `..data` entries are skipped). A file that is not a P-256 or Ed25519 private key in PEM
    /// fails the load, naming the file.
    static func readKeyFiles(_ paths: [String]) throws(ConfigurationError) -> [SigningKey] {
        let files = try EnvironmentReader.keyFilePaths(paths, suffix: ".pem", variable: "SIGNING_KEY_FILE")
        var keys: [SigningKey] = []
        for file in files {
            // A key file is small and regular: anything else (a device, a pipe, a huge file) is refused unread.
            let data = try EnvironmentReader.readSecretFile(file, variable: "SIGNING_KEY_FILE", maxBytes: maxFileSize)
            do {
                // Bytes that are not UTF-8 become replacement characters, which no PEM parser takes.
                let key = try SigningKey(pem: String(decoding: data, as: UTF8.self), activatesAt: .distantPast, retiredAt: nil)
                if !keys.contains(where: { $0.kid == key.kid }) { keys.append(key) }
            } catch {
                throw ConfigurationError(variable: "SIGNING_KEY_FILE",
                                         problem: "\(String(reflecting: file)) is not a readable P-256 or Ed25519 private key in PEM")
            }
        }
        guard !keys.isEmpty else {
            throw ConfigurationError(variable: "SIGNING_KEY_FILE", problem: "no key file found in \(paths.joined(separator: ", "))")
        }
        return keys
    }
}
