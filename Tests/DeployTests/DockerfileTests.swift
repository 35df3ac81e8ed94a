import Foundation
import Testing
import TestSupport

/// deploy/docker/Dockerfile (no Docker engine runs here, so what can be checked without one):
/// the stages, the non-root user, the runtime libraries that match the build's -dev packages,
/// and the health-check script.
@Suite("Dockerfile")
struct DockerfileTests {
    private let dockerfile: String

    init() throws {
        dockerfile = try DeployFiles.text("deploy/docker/Dockerfile")
    }

    /// The packages of the `apt-get install` in the stage that starts with `from`.
    private func installed(inStage from: String) -> [String] {
        guard let start = dockerfile.range(of: "FROM \(from)") else { return [] }
        let stage = dockerfile[start.upperBound...].components(separatedBy: "\nFROM ").first ?? ""
        guard let install = stage.range(of: "--no-install-recommends") else { return [] }
        let rest = stage[install.upperBound...]
        let list = rest.components(separatedBy: "&&").first ?? ""
        return list.replacingOccurrences(of: "\\", with: " ").split(whereSeparator: \.isWhitespace).map(String.init)
    }

    @Test("builds in the Swift image on Debian 12 and runs on bookworm-slim as a non-root user")
    func stages() {
        #expect(dockerfile.contains("ARG SWIFT_IMAGE=swift:6."), "not a Swift 6 image")
        #expect(dockerfile.contains("-bookworm\n"), "the build image is not Debian 12")
        #expect(dockerfile.contains("ARG RUNTIME_IMAGE=debian:bookworm-slim"))
        #expect(dockerfile.contains("--static-swift-stdlib"))
        #expect(dockerfile.contains("social-login_Gateway.resources"), "the gateway's resource bundle is not copied")
        #expect(dockerfile.contains("USER 10001:10001"))
        #expect(dockerfile.contains("HEALTHCHECK"))
        for product in ["gateway", "token-verifier", "member-service", "token-issuer", "admin-api", "webhook-relay", "dev-idp"] {
            #expect(dockerfile.contains(product), "\(product) is not in the image")
        }
    }

    @Test("the runtime stage installs exactly the libraries the build's -dev packages stand for")
    func runtimeLibraries() async throws {
        let build = installed(inStage: "${SWIFT_IMAGE} AS build").filter { $0.hasSuffix("-dev") }
        let runtime = Set(installed(inStage: "${RUNTIME_IMAGE} AS runtime"))
        #expect(build.count == 5, "\(build)")
        #expect(runtime.isSuperset(of: ["ca-certificates", "tzdata"]))
        for package in build {
            // Debian's -dev package depends on its runtime library at the exact same version.
            let query = try await runProcess("/usr/bin/dpkg-query", ["-W", "-f=${Depends}", package])
            #expect(query.status == 0, "\(package) is not installed here: \(query.error)")
            let exact = query.output.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.contains("(= ") }.map { String($0.prefix { $0 != " " }) }
            #expect(!exact.isEmpty, "\(package): no runtime library in \(query.output)")
            for library in exact {
                #expect(runtime.contains(library), "the runtime stage lacks \(library) (for \(package))")
            }
        }
    }

    @Test("every top-level folder Package.swift names is in the build context and copied into the build stage")
    func packageFoldersCopied() throws {
        let manifest = try DeployFiles.text("Package.swift")
        let pattern = try NSRegularExpression(pattern: #"path: "([A-Za-z0-9_-]+)/"#)
        let folders = Set(pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).compactMap {
            Range($0.range(at: 1), in: manifest).map { String(manifest[$0]) }
        })
        #expect(folders.isSuperset(of: ["Shared", "Services", "Client", "Tests"]), "\(folders.sorted())")
        let ignore = try DeployFiles.text("deploy/docker/Dockerfile.dockerignore")
        for folder in folders {
            #expect(dockerfile.contains("COPY \(folder) ./\(folder)\n"), "the Dockerfile does not copy \(folder)")
            #expect(ignore.contains("!\(folder)/**\n"), "Dockerfile.dockerignore keeps \(folder) out of the build context")
        }
    }

    @Test("the health-check script is valid shell and refuses an unknown service")
    func healthcheckScript() async throws {
        let path = DeployFiles.root.appendingPathComponent("deploy/docker/healthcheck").path
        #expect(FileManager.default.isExecutableFile(atPath: path))
        let syntax = try await runProcess("/bin/sh", ["-n", path])
        #expect(syntax.status == 0, "\(syntax.error)")
        let unknown = try await runProcess("/bin/sh", [path, "no-such-service"])
        #expect(unknown.status != 0)
        #expect(unknown.error.contains("unknown service"))
    }
}
