import Foundation

extension EnvironmentReader {
    /// The largest secret file read: secrets are keys and passwords, never more.
    static let maxSecretFileSize = 64 * 1024

    /// The bytes of a key or password file (`variable` names where its path came from), read through any
    /// symbolic link (Kubernetes mounts secrets as links). Only a regular file is opened (a device or a
    /// pipe could block or never end), and only up to `maxBytes`: the size a file reports may change
    /// while it is read. Errors name the variable and never include the contents.
    public static func readSecretFile(_ path: String, variable: String, maxBytes: Int) throws(ConfigurationError) -> Data {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let attributes = try? FileManager.default.attributesOfItem(atPath: resolved)
        guard attributes?[.type] as? FileAttributeType == .typeRegular, let handle = FileHandle(forReadingAtPath: resolved) else {
            throw ConfigurationError(variable: variable,
                                     problem: "\(String(reflecting: path)) is not a regular file of at most \(maxBytes) bytes that can be read")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw ConfigurationError(variable: variable, problem: "cannot read \(String(reflecting: path)): \((error as NSError).localizedDescription)")
        }
        guard data.count <= maxBytes else {
            throw ConfigurationError(variable: variable,
                                     problem: "\(String(reflecting: path)) is not a regular file of at most \(maxBytes) bytes: it is larger")
        }
        return data
    }

    /// The key files `paths` name (`variable` says where they came from), in order: each path a file, or a
    /// directory whose files ending in `suffix` are taken in name order (a mounted Kubernetes Secret is such a
    /// directory; its hidden `..data` entries are skipped). A path that does not exist fails, naming it.
    public static func keyFilePaths(_ paths: [String], suffix: String, variable: String) throws(ConfigurationError) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ConfigurationError(variable: variable, problem: "'\(path)' does not exist")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw ConfigurationError(variable: variable, problem: "the directory '\(path)' cannot be read")
            }
            files += names.filter { !$0.hasPrefix(".") && $0.hasSuffix(suffix) }.sorted().map { "\(path)/\($0)" }
        }
        return files
    }

    /// The contents of the file that `name` points at (a mounted secret), trailing line ends removed; nil
    /// when `name` is unset. Errors name the variable and never include the contents.
    public func secretFile(_ name: String) throws(ConfigurationError) -> String? {
        guard let path = optional(name) else { return nil }
        let data = try Self.readSecretFile(path, variable: name, maxBytes: Self.maxSecretFileSize)
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
