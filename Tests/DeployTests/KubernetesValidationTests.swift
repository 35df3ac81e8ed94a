import Foundation
import Testing
import TestSupport

/// deploy/k8s against the API of a current Kubernetes, offline and strictly (unknown fields are errors),
/// with kubernetes-validate (PyPI; the test command installs it into its virtual environment).
@Suite("Kubernetes manifests validate against Kubernetes 1.37")
struct KubernetesValidationTests {
    static let kubernetesVersion = "1.37"

    private func validate(_ files: [String]) async throws -> ProcessOutput {
        try await runProcess("/usr/bin/env", ["kubernetes-validate", "--strict", "-k", Self.kubernetesVersion] + files,
                             workingDirectory: DeployFiles.root.path)
    }

    @Test("every resource of every manifest validates strictly")
    func manifests() async throws {
        // kustomization.yaml configures kustomize; it is not a resource of the API.
        let files = try DeployFiles.kubernetesFiles().filter { !$0.hasSuffix("kustomization.yaml") }
        let result = try await validate(files)
        #expect(result.status == 0, "kubernetes-validate (run the tests with deploy/local/test, which installs it): \(result.output) \(result.error)")
        for file in files {
            #expect((result.output + result.error).contains("\((file as NSString).lastPathComponent) passed"), "\(file) was not validated")
        }
        #expect(!(result.output + result.error).contains("did not validate"))
    }

    @Test("the validator refuses a field the API does not have")
    func strict() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("k8s-\(UUID().uuidString.prefix(8)).yaml")
        try Data("""
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: x}
            spec:
              replica: 2
              selector: {matchLabels: {app: x}}
              template:
                metadata: {labels: {app: x}}
                spec: {containers: [{name: x, image: x}]}
            """.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await validate([file.path])
        #expect(result.status != 0)
        #expect((result.output + result.error).contains("'replica' was unexpected"))
    }
}
