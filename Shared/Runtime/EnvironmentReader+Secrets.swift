import Foundation

extension EnvironmentReader {
    /// The largest secret file read: secrets are keys and passwords, never more.
    static let maxSecretFileSize = 64 * 1024

    /// The contents of the file that `name` points at (a mounted secret), trailing line ends removed; nil when `name` is unset. Errors name the variable and never include the contents.
    public func secretFile(_ name: String) throws(ConfigurationError) -> String? {
        guard let path = optional(name) else { return nil }
        // Opened through any symbolic link (Kubernetes mounts secrets as links), and read only up to the
        // limit: the size a link or a FIFO reports says nothing.
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ConfigurationError(variable: name, problem: "cannot read '\(path)'")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: Self.maxSecretFileSize + 1) ?? Data()
        } catch {
            throw ConfigurationError(variable: name, problem: "cannot read '\(path)': \((error as NSError).localizedDescription)")
        }
        guard data.count <= Self.maxSecretFileSize else {
            throw ConfigurationError(variable: name, problem: "'\(path)' is larger than \(Self.maxSecretFileSize) bytes")
        }
        // Only the line ends an editor or `echo` leaves (LF or CRLF, counted in bytes: Swift sees "\r\n" as
        // one character): a password may begin or end with a space.
        var bytes = data[...]
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes = bytes.dropLast() }
        guard let text = String(data: Data(bytes), encoding: .utf8) else {
            throw ConfigurationError(variable: name, problem: "'\(path)' is not UTF-8 text")
        }
        guard !text.isEmpty else { throw ConfigurationError(variable: name, problem: "'\(path)' is empty") }
        return text
    }

    /// A secret given either inline (`name`) or as a file (`name_FILE`, as Docker and Kubernetes secrets
    /// mount them); nil when neither is set. Both set is an error: which one wins would be a guess.
    public func secret(_ name: String) throws(ConfigurationError) -> (value: String, variable: String)? {
        let fileVariable = name + "_FILE"
        let inline = optional(name)
        let file = try secretFile(fileVariable)
        switch (inline, file) {
        case (nil, nil): return nil
        case (let value?, nil): return (value, name)
        case (nil, let value?): return (value, fileVariable)
        case (_?, _?): throw ConfigurationError(variable: fileVariable, problem: "is set together with \(name): set one of them")
        }
    }
}
