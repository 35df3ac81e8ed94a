import Collections
import Foundation
import JSON
import Testing
import TestSupport

/// Package.swift says what each target needs, and the graph is only true when it matches the code:
/// a module imported but not declared builds only while something else happens to pull it in
/// (and breaks when that changes), a module declared but never imported drags its dependencies
/// (OpenSSL, libpq...) into a target that has no use for them.
@Suite("Package.swift and the imports")
struct PackageImportTests {
    /// One target of `swift package dump-package`, reduced to what is compared.
    private struct Target {
        let name: String
        let path: String
        let dependencies: Set<String>
        /// A C library's module map: nothing to read imports from.
        let isSystemLibrary: Bool
    }

    @Test("each Swift target declares exactly the package modules its files import")
    func dependenciesEqualImports() async throws {
        let targets = try await Self.targets()
        let names = Set(targets.map(\.name))
        #expect(targets.count > 30, "dump-package listed \(targets.map(\.name))")
        // The file reads on a thread of their own, as every scan of this target: on Swift's cooperative threads
        // they held both for seconds (DocumentLinkTests says more).
        let problems = try await BlockingCall.run { () throws -> [String] in
            var problems: [String] = []
            for target in targets where !target.isSystemLibrary
                && ["Shared/", "Services/", "Client/", "Tests/"].contains(where: target.path.hasPrefix) {
                let imported = try Self.imports(under: target.path).intersection(names)
                for module in imported.subtracting(target.dependencies).sorted() {
                    problems.append("\(target.name) imports \(module) but does not declare it")
                }
                for module in target.dependencies.subtracting(imported).sorted() {
                    problems.append("\(target.name) declares \(module) but never imports it")
                }
            }
            return problems
        }
        #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
    }

    /// The rooms inside a service's library (docs/architecture.md) and the modules each must not import:
    /// the domain holds rules and tables with no I/O; the app layer reaches other services through
    /// `Messaging` only, never a database, a socket or a C library's wrapper directly.
    static let forbiddenByLayer: [String: Set<String>] = [
        "Domain": ["Postgres", "Persistence", "NATS", "Messaging", "HTTPServer", "HTTPAPI", "HTTPClient", "Management",
                   "CLibPQ", "CNats", "CMicroHTTPD", "CCurl", "COpenSSL"],
        "App": ["Postgres", "Persistence", "NATS", "HTTPServer", "HTTPAPI", "HTTPClient", "Management",
                "CLibPQ", "CNats", "CMicroHTTPD", "CCurl", "COpenSSL"],
    ]

    @Test("a service's Domain and App files import no I/O module")
    func layersImportInward() async throws {
        let (problems, seen) = try await BlockingCall.run { () throws -> ([String], Int) in
            var problems: [String] = []
            var seen = 0
            for service in try FileManager.default.contentsOfDirectory(atPath: DeployFiles.root.appendingPathComponent("Services").path) {
                for (layer, forbidden) in Self.forbiddenByLayer {
                    let folder = DeployFiles.root.appendingPathComponent("Services/\(service)/\(service)/\(layer)")
                    guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
                    for file in files where file.hasSuffix(".swift") {
                        seen += 1
                        let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                        for module in Self.importedModules(in: text) where forbidden.contains(module) {
                            problems.append("\(service)/\(layer)/\(file) imports \(module)")
                        }
                    }
                }
            }
            return (problems, seen)
        }
        #expect(seen > 20, "no Domain or App files found under Services/")
        #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
    }

    @Test("a service's Domain and App files name no type its Adapters declare: they hold the ports' protocols")
    func appHoldsPortsNotAdapters() async throws {
        let (problems, adapterTypes) = try await BlockingCall.run { () throws -> ([String], Int) in
            var problems: [String] = []
            var adapterTypes = 0
            for service in try FileManager.default.contentsOfDirectory(atPath: DeployFiles.root.appendingPathComponent("Services").path) {
                let library = DeployFiles.root.appendingPathComponent("Services/\(service)/\(service)")
                let declared = try Self.swiftFiles(in: library.appendingPathComponent("Adapters"))
                    .reduce(into: Set<String>()) { $0.formUnion(Self.declaredTypes(in: $1.text)) }
                adapterTypes += declared.count
                for layer in ["Domain", "App"] {
                    for file in try Self.swiftFiles(in: library.appendingPathComponent(layer)) {
                        let named = Self.identifiers(in: Self.code(of: file.text))
                        for type in declared.intersection(named).sorted() {
                            problems.append("\(service)/\(layer)/\(file.name) names \(type), an adapter: hold a protocol of its own instead")
                        }
                    }
                }
            }
            return (problems, adapterTypes)
        }
        #expect(adapterTypes > 10, "no adapter types found under Services/")
        #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
    }

    @Test("the adapter check reads declarations and names in code, not in comments")
    func adapterCheckReading() {
        let adapter = """
            struct MemberStore: MemberRepository {
                struct Row {}
            }
            final actor SigningKeys {}
            @available(macOS 15, *) public final class Cache<Key> {}
            nonisolated(unsafe) indirect enum Tree {}
            extension NaverVerifier: NaverTokenEndpoint {}
            """
        #expect(Self.declaredTypes(in: adapter) == ["MemberStore", "SigningKeys", "Cache", "Tree"])
        let app = """
            /// Calls the ``MemberStore`` in the service.
            let members: any MemberRepository  // not a MemberStore
            let note = "see https://example.com/MemberStore" + /* Tree */ "\\(Cache.self)"
            let keys: SigningKeys?
            """
        #expect(Self.identifiers(in: Self.code(of: app)).intersection(["MemberStore", "SigningKeys", "Cache", "Tree"])
                == ["SigningKeys", "Cache"])
    }

    /// The Swift files in `folder` and its subfolders, with their paths below it and their text; none when there is no such folder.
    private static func swiftFiles(in folder: URL) throws -> [(name: String, text: String)] {
        guard let names = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return try names.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The names of the types `text` declares at its top level (not nested, not extended), after any attributes
    /// and modifiers.
    private static func declaredTypes(in text: String) -> Set<String> {
        let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private", "open", "final", "indirect",
                                         "nonisolated", "distributed"]
        let kinds: Set<Substring> = ["struct", "class", "actor", "enum", "protocol", "typealias"]
        var names: Set<String> = []
        for line in text.split(separator: "\n") where !(line.first?.isWhitespace ?? true) {
            var rest = line[...]
            // Attributes first (`@available(macOS 15, *)`, `@MainActor`), their arguments included.
            while rest.hasPrefix("@") {
                var depth = 0
                var end = rest.startIndex
                for index in rest.indices {
                    let character = rest[index]
                    if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
                    end = index
                    if depth == 0 && (character == " " || character == ")") { break }
                }
                rest = rest[rest.index(after: end)...].drop { $0 == " " }
            }
            let words = rest.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" })
                .drop { modifiers.contains($0.split(separator: "(").first ?? $0) }
            if let kind = words.first, kinds.contains(kind), let name = words.dropFirst().first { names.insert(String(name)) }
        }
        return names
    }

    /// `text` without its comments (`//` to the end of a line, `/* */`) and the contents of its string literals
    /// (an interpolation's code stays): a doc comment or a message may name an adapter.
    private static func code(of text: String) -> String {
        var code = ""
        var characters = Array(text)[...]
        var inString = false
        var interpolation = 0  // the parentheses open inside an interpolation of a string
        while let character = characters.first {
            let next = characters.dropFirst().first
            if inString && interpolation == 0 {
                if character == "\\" && next == "(" {
                    interpolation = 1
                    characters = characters.dropFirst(2)
                    continue
                }
                if character == "\\" { characters = characters.dropFirst(2); continue }
                if character == "\"" { inString = false }
                if character == "\n" { code.append("\n") }
                characters = characters.dropFirst()
                continue
            }
            if character == "/" && next == "/" {
                characters = characters.drop { $0 != "\n" }
                continue
            }
            if character == "/" && next == "*" {
                characters = characters.dropFirst(2)
                while !characters.isEmpty && !(characters.first == "*" && characters.dropFirst().first == "/") {
                    characters = characters.dropFirst()
                }
                characters = characters.dropFirst(2)
                continue
            }
            if inString {
                if character == "(" { interpolation += 1 } else if character == ")" { interpolation -= 1 }
                if interpolation > 0 { code.append(character) }
                characters = characters.dropFirst()
                continue
            }
            if character == "\"" {
                inString = true
                characters = characters.dropFirst()
                continue
            }
            code.append(character)
            characters = characters.dropFirst()
        }
        return code
    }

    /// The identifiers `text` uses.
    private static func identifiers(in text: String) -> Set<String> {
        Set(text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
    }

    @Test("the import reader sees every spelling of an import, and nothing else")
    func importLines() {
        let text = """
            import Foundation
            @testable import Gateway
            @preconcurrency import NATS
            public import JSON
            import struct Crypto.PrivateKey
            // import Postgres
            let note = "import Metrics"
              import HTTPServer
            """
        #expect(Self.importedModules(in: text) == ["Foundation", "Gateway", "NATS", "JSON", "Crypto"])
    }

    /// The package's targets, from `swift package dump-package`,
    /// run with its own scratch directory so that it does not wait for the build that runs the tests.
    private static func targets() async throws -> [Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-package-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try await runProcess("/usr/bin/env", ["swift", "package", "--scratch-path", scratch.path, "dump-package"],
                                          workingDirectory: DeployFiles.root.path)
        guard result.status == 0 else { throw DeployTestError("swift package dump-package failed: \(result.error)") }
        let manifest = try MessageCoding.decode(JSONValue.self, from: Array(result.output.utf8))
        return manifest["targets"]?.elements.compactMap { target -> Target? in
            guard let name = target["name"]?.stringValue, let path = target["path"]?.stringValue else { return nil }
            // Each dependency is {"byName"|"target"|"product": [name, condition]}.
            let dependencies = target["dependencies"]?.elements.compactMap { dependency in
                ["byName", "target", "product"].lazy.compactMap { dependency[$0]?.elements.first?.stringValue }.first
            } ?? []
            return Target(name: name, path: path, dependencies: Set(dependencies),
                          isSystemLibrary: target["type"]?.stringValue == "system")
        } ?? []
    }

    /// The modules the Swift files under `path` import.
    private static func imports(under path: String) throws -> Set<String> {
        let folder = DeployFiles.root.appendingPathComponent(path)
        guard let files = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var modules: Set<String> = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            modules.formUnion(importedModules(in: text))
        }
        return modules
    }

    /// The modules named by the import declarations of `text`, in order: lines that start with
    /// `import`, after attributes (`@testable`, `@preconcurrency`) and an access level; a declaration
    /// kind (`import struct M.T`) may follow. Indented lines are not read (an import is top-level).
    private static func importedModules(in text: String) -> [String] {
        let accessLevels: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
        var modules: [String] = []
        for line in text.split(separator: "\n") where !(line.first?.isWhitespace ?? true) {
            var words = line.split(separator: " ").drop { $0.hasPrefix("@") || accessLevels.contains($0) }
            guard words.first == "import" else { continue }
            words = words.dropFirst().drop { kinds.contains($0) }
            if let name = words.first?.split(separator: ".").first { modules.append(String(name)) }
        }
        return modules
    }
}
