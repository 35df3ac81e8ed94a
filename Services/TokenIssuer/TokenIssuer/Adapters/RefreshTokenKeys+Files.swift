import Foundation
import Runtime

extension RefreshTokenKeys {
    /// The largest key file read: a key is tens of bytes.
    static let maxFileSize = 4_096

    /// The keys in `paths` (`REFRESH_TOKEN_KEY_FILE`), in order, the last signing: each path a file, or a directory
    /// whose `*.key` files are taken in name order. A key is the file's bytes without trailing line ends (as
    /// `openssl rand -base64 48` writes one), at least ``minimumKeyBytes`` of them; anything shorter fails the
    /// load, naming the file, never its contents.
    static func readKeyFiles(_ paths: [String]) throws(ConfigurationError) -> RefreshTokenKeys {
        let variable = "REFRESH_TOKEN_KEY_FILE"
        var keys: [[UInt8]] = []
        for file in try EnvironmentReader.keyFilePaths(paths, suffix: ".key", variable: variable) {
            var bytes = Array(try EnvironmentReader.readSecretFile(file, variable: variable, maxBytes: maxFileSize))
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            guard bytes.count >= minimumKeyBytes else {
                throw ConfigurationError(variable: variable,
                                         problem: "\(String(reflecting: file)) holds \(bytes.count) bytes; a key is at least \(minimumKeyBytes)")
            }
            keys.append(bytes)
        }
        guard let loaded = RefreshTokenKeys(keys) else {
            throw ConfigurationError(variable: variable, problem: "no key file found in \(paths.joined(separator: ", "))")
        }
        return loaded
    }
}
