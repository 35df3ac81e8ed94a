import Foundation
import JOSE
import Runtime

extension RefreshTokenKeys {
    /// The largest key file read: a key is tens of bytes.
    static let maxFileSize = 4_096

    /// The keys in `paths` (`REFRESH_TOKEN_KEY_FILE`), in order, the last signing: each path a file, or a directory
    /// whose `*.key` files are taken in name order. A key file holds base64 or base64url text (trailing line ends
    /// aside, as `openssl rand -base64 48` writes it) of at least ``minimumKeyBytes`` random bytes: the key is
    /// those bytes. Anything else (a passphrase, a placeholder, a short key) fails the load, naming the file, never
    /// its contents.
    static func readKeyFiles(_ paths: [String]) throws(ConfigurationError) -> RefreshTokenKeys {
        let variable = "REFRESH_TOKEN_KEY_FILE"
        var keys: [[UInt8]] = []
        for file in try EnvironmentReader.keyFilePaths(paths, suffix: ".key", variable: variable) {
            var bytes = Array(try EnvironmentReader.readSecretFile(file, variable: variable, maxBytes: maxFileSize))
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            // Whitespace anywhere is left out: base64 tools wrap long output over several lines.
            let text = String(decoding: bytes.filter { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }, as: UTF8.self)
            guard !text.contains("CHANGE-ME"), let key = Base64URL.decodeKey(text), key.count >= minimumKeyBytes else {
                throw ConfigurationError(variable: variable, problem: "\(String(reflecting: file)) is not the base64 of \(minimumKeyBytes) or more random bytes (openssl rand -base64 48)")
            }
            keys.append(key)
        }
        guard let loaded = RefreshTokenKeys(keys) else {
            throw ConfigurationError(variable: variable, problem: "no key file found in \(paths.joined(separator: ", "))")
        }
        return loaded
    }
}
