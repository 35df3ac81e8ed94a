import Foundation
import Testing
import TestSupport

/// deploy/docker/compose-secrets, the compose stack's `secrets` one-shot, run on directories of
/// its own (COMPOSE_SECRETS_ROOT) in place of its mounts: what it refuses, what it hands to whom,
/// and what the dev profile adds. deploy/docker/test runs it in the real stack.
@Suite("compose-secrets: each container its own secrets, the production start refused without them")
struct ComposeSecretsTests {
    static let required = ["signing-key.pem", "refresh-token.key", "provider-token.key", "database-password", "member-database-password",
                           "issuer-database-password", "admin-database-password", "admin-tokens", "nats/auth.conf",
                           "nats/gateway.nk", "nats/token-verifier.nk", "nats/member-service.nk", "nats/token-issuer.nk",
                           "nats/admin-api.nk", "nats/webhook-relay.nk"]
    /// Optional: without a webhooks file the relay gets `[]` (no endpoint).
    static let optional = ["apple-key.p8", "apple-key.pub.pem", "naver-client-secret", "nats/cluster.conf", "webhooks"]

    /// What each container's volume holds, from a full set.
    static let handedOut: [String: Set<String>] = [
        "gateway": ["nats-seed"],
        "token-verifier": ["nats-seed", "provider-token-key", "apple-key.p8", "naver-client-secret"],
        "member-service": ["nats-seed", "database-password"],
        "token-issuer": ["nats-seed", "database-password", "signing-key.pem", "refresh-token.key"],
        // The admin-api: its seed, its role's password and its admins; never an admin's token itself.
        "admin-api": ["nats-seed", "database-password", "admin-tokens"],
        // The webhook-relay: its seed and its endpoints (each one's signing secret) alone.
        "webhook-relay": ["nats-seed", "webhooks"],
        "postgres": ["database-password", "member-database-password", "issuer-database-password", "admin-database-password"],
        "nats": ["nats.conf"],
        "nats-cluster": ["nats-auth.conf", "nats.conf"],
        "dev-idp": ["apple-key.pub.pem"],
    ]

    /// A scratch root with given/, made/ and out/, removed afterwards.
    private struct Scratch {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("compose-secrets-\(UUID().uuidString)")
        init() throws {
            for folder in ["given", "made", "out"] {
                try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
        }
        /// Writes each file (its own name as content, so each can be told apart) under `folder`.
        func write(_ files: [String], in folder: String) throws {
            for file in files {
                let url = root.appendingPathComponent("\(folder)/\(file)")
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("\(folder):\(file)\n".utf8).write(to: url)
            }
        }
        func contents(_ path: String) -> String? { try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }
        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path) }
        func listing(_ consumer: String) -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("out/\(consumer)").path)) ?? [])
        }
        /// Runs the script with these variables (and DEV_PROFILE_WAIT=1 unless given). With
        /// `devProfile`, deploy/docker/make-secrets --dev-profile runs beside it on made/, as the dev
        /// profile's dev-secrets service does, with a stand-in for the image's nats-auth.
        func run(_ variables: [String] = [], devProfile: Bool = false) async throws -> ProcessOutput {
            let script = DeployFiles.root.appendingPathComponent("deploy/docker/compose-secrets").path
            var command = "exec /bin/sh \"$0\""
            if devProfile {
                let bin = root.appendingPathComponent("bin")
                try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
                let natsAuth = bin.appendingPathComponent("nats-auth")
                try Data("""
                    #!/bin/sh
                    # A stand-in for the image's nats-auth: seeds, and an authorization naming them.
                    case $1 in
                      seeds) for s in gateway token-verifier member-service token-issuer admin-api webhook-relay operator; do [ -s "$2/$s.nk" ] || echo "SU-$s" >"$2/$s.nk"; done ;;
                      config) echo "authorization { users: [] }" ;;
                    esac

                    """.utf8).write(to: natsAuth)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: natsAuth.path)
                let makeSecrets = DeployFiles.root.appendingPathComponent("deploy/docker/make-secrets").path
                // Both to their end: the script, then make-secrets (which the test reads after).
                command = "PATH=\(bin.path):$PATH SECRETS_DIR=\(root.path)/made REQUEST_WAIT=5 bash \(makeSecrets) --dev-profile 2>\(root.path)/dev-secrets.log & /bin/sh \"$0\"; status=$?; wait; exit $status"
            }
            return try await runProcess("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "COMPOSE_SECRETS_ROOT=\(root.path)",
                                                         "SECRETS_DIR_ON_HOST=./deploy/docker/.secrets", "DEV_PROFILE_WAIT=1"]
                                        + variables + ["/bin/sh", "-c", command, script])
        }
        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test("no secrets and no dev profile: it stops, naming the missing files and the commands that make them, and hands out nothing")
    func refusesWithoutSecrets() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // deploy/docker/.secrets/README.md, which the repository keeps there, is no secret, nor is
        // the .DS_Store a Mac's Finder leaves.
        try scratch.write(["README.md", ".DS_Store"], in: "given")
        let result = try await scratch.run()
        #expect(result.status == 1)
        for file in Self.required {
            #expect(result.error.contains(file), "the message does not name \(file): \(result.error)")
        }
        #expect(result.error.contains("./deploy/docker/.secrets"))
        #expect(result.error.contains("docker compose --profile dev up"), "\(result.error)")
        #expect(result.error.contains("no dev profile answered"), "\(result.error)")
        #expect(result.error.contains("deploy/docker/make-secrets"), "\(result.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.root.appendingPathComponent("out").path).isEmpty)
    }

    @Test("a SECRETS_DIR missing one required file is refused at once, without waiting for a dev profile, naming that file alone")
    func refusesAnIncompleteSet() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write(Self.required.filter { $0 != "signing-key.pem" }, in: "given")
        // However long it would wait for a dev profile, an incomplete SECRETS_DIR is refused without
        // asking one: its request says none (no wall clock judged: a busy suite stretches it).
        let result = try await scratch.run(["DEV_PROFILE_WAIT=30"])
        #expect(result.status == 1)
        #expect(scratch.contents("made/.request") == "none\n")
        #expect(!result.error.contains("no dev profile answered"), "\(result.error)")
        #expect(result.error.contains("lacks signing-key.pem"), "\(result.error)")
        #expect(result.error.contains("empty it to use the dev profile's own secrets"), "\(result.error)")
        #expect(!result.error.contains("provider-token.key"), "\(result.error)")
        #expect(scratch.listing("token-issuer").isEmpty)
    }

    @Test("a full SECRETS_DIR: each container's volume gets its own files alone, the services' 0400 as uid 10001, and no dev settings")
    func handsOutTheGivenSet() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write(Self.required + Self.optional, in: "given")
        // Left by an earlier start with the dev profile: it goes.
        try scratch.write(["token-verifier/settings.env"], in: "out")
        let result = try await scratch.run()
        #expect(result.status == 0, "\(result.error)")
        for (consumer, files) in Self.handedOut {
            #expect(scratch.listing(consumer) == files, "\(consumer): \(scratch.listing(consumer).sorted())")
        }
        #expect(scratch.contents("out/token-issuer/database-password") == "given:issuer-database-password\n")
        #expect(scratch.contents("out/member-service/database-password") == "given:member-database-password\n")
        #expect(scratch.contents("out/admin-api/database-password") == "given:admin-database-password\n")
        #expect(scratch.contents("out/admin-api/nats-seed") == "given:nats/admin-api.nk\n")
        #expect(scratch.contents("out/admin-api/admin-tokens") == "given:admin-tokens\n")
        #expect(scratch.contents("out/webhook-relay/nats-seed") == "given:nats/webhook-relay.nk\n")
        #expect(scratch.contents("out/webhook-relay/webhooks") == "given:webhooks\n")
        #expect(scratch.contents("out/postgres/admin-database-password") == "given:admin-database-password\n")
        #expect(scratch.contents("out/gateway/nats-seed") == "given:nats/gateway.nk\n")
        #expect(scratch.contents("out/nats/nats.conf") == "given:nats/auth.conf\n")
        #expect(scratch.contents("out/nats-cluster/nats.conf") == "given:nats/cluster.conf\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: scratch.root.appendingPathComponent("out/token-issuer/signing-key.pem").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o400)
        // As root (compose runs it so) the services' files are their user's.
        if getuid() == 0 { #expect((attributes[.ownerAccountID] as? NSNumber)?.intValue == 10001) }
        let postgres = try FileManager.default.attributesOfItem(atPath: scratch.root.appendingPathComponent("out/postgres/database-password").path)
        #expect((postgres[.posixPermissions] as? NSNumber)?.intValue == 0o444)
    }

    @Test("a link in SECRETS_DIR leading outside it (to another container's volume) is refused; a SECRETS_DIR of links only is not taken for an empty one")
    func linksStayInside() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write(Self.required.filter { $0 != "nats/gateway.nk" }, in: "given")
        try scratch.write(["token-issuer/signing-key.pem"], in: "out")
        try FileManager.default.createSymbolicLink(atPath: scratch.root.appendingPathComponent("given/nats/gateway.nk").path,
                                                   withDestinationPath: scratch.root.appendingPathComponent("out/token-issuer/signing-key.pem").path)
        let result = try await scratch.run()
        #expect(result.status == 1)
        #expect(result.error.contains("nats/gateway.nk in ./deploy/docker/.secrets leads outside it"), "\(result.error)")
        #expect(!scratch.exists("out/gateway/nats-seed"))
        let links = try Scratch()
        defer { links.remove() }
        try FileManager.default.createSymbolicLink(atPath: links.root.appendingPathComponent("given/signing-key.pem").path,
                                                   withDestinationPath: "/nonexistent/vault/signing-key.pem")
        let refused = try await links.run()
        #expect(refused.status == 1)
        #expect(refused.error.contains("holds secret files but lacks"), "\(refused.error)")
    }

    @Test("the optional files (Apple's key, Naver's secret, the cluster's configuration, the webhooks) may be absent; the relay then gets an empty list of endpoints")
    func optionalFiles() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write(Self.required, in: "given")
        let result = try await scratch.run()
        #expect(result.status == 0, "\(result.error)")
        #expect(scratch.listing("token-verifier") == ["nats-seed", "provider-token-key"])
        #expect(scratch.listing("nats-cluster") == ["nats-auth.conf"])
        #expect(scratch.listing("dev-idp").isEmpty)
        #expect(scratch.listing("webhook-relay") == ["nats-seed", "webhooks"])
        #expect(scratch.contents("out/webhook-relay/webhooks") == "[]\n")
    }

    @Test("the dev profile: make-secrets --dev-profile makes the set and answers this start's request; token-verifier gets dev.env less the providers configured by hand; a later start without it is refused")
    func devProfile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let devEnv = try String(contentsOf: DeployFiles.root.appendingPathComponent("deploy/docker/dev.env"), encoding: .utf8)
        try Data(devEnv.utf8).write(to: scratch.root.appendingPathComponent("dev.env"))
        let result = try await scratch.run(["DEV_PROFILE_WAIT=10", "GOOGLE_CLIENT_IDS=123-abc.apps.googleusercontent.com"], devProfile: true)
        #expect(result.status == 0, "\(result.error)\n\(scratch.contents("dev-secrets.log") ?? "")")
        for (consumer, files) in Self.handedOut {
            #expect(scratch.listing(consumer) == files.union(["token-verifier", "webhook-relay"].contains(consumer) ? ["settings.env"] : []),
                    "\(consumer): \(scratch.listing(consumer).sorted())")
        }
        #expect(scratch.contents("out/token-issuer/signing-key.pem")?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        #expect((scratch.contents("out/token-issuer/refresh-token.key")?.utf8.count ?? 0) >= 32)
        #expect(scratch.contents("out/gateway/nats-seed") == "SU-gateway\n")
        // The development admin, dev-admin: its token stays in the dev-secrets volume (made/), where
        // deploy/README.md reads it; the admin-api gets the SHA-256 of it alone.
        let token = try #require(scratch.contents("made/admin-token"))
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit) && token == token.lowercased(), "\(token)")
        let digest = try await runProcess("/bin/sh", ["-c", "printf '%s' \"$0\" | sha256sum | cut -d' ' -f1", token])
        let tokens = try #require(scratch.contents("out/admin-api/admin-tokens"))
        let admins = tokens.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        let hex = digest.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hex.count == 64, "sha256sum: \(digest.output) \(digest.error)")
        #expect(admins == ["dev-admin:\(hex)"], "\(tokens)")
        #expect(!tokens.contains(token), "the tokens file holds the token itself")
        #expect(scratch.contents("out/admin-api/database-password") == scratch.contents("made/admin-database-password"))
        #expect(scratch.contents("out/postgres/admin-database-password") == scratch.contents("made/admin-database-password"))
        // Its request is withdrawn. (An answer dev-secrets' alive loop writes just after may stay: it
        // answers this start's request alone, which no later start makes; see staleAnswers.)
        #expect(!scratch.exists("made/.request"), "the request was left for a later start")
        let settings = try #require(scratch.contents("out/token-verifier/settings.env"))
        #expect(settings.contains("APPLE_ISSUER=http://dev-idp:9400/apple\n"))
        #expect(settings.contains("NAVER_CLIENT_SECRET_FILE=/run/secrets/naver-client-secret\n"))
        #expect(!settings.contains("GOOGLE_"), "Google was configured by hand, yet: \(settings)")
        #expect(!settings.contains("#"), "comments are left out")
        #expect(!settings.contains("WEBHOOK_"), "the relay's settings went to token-verifier: \(settings)")
        // The webhook-relay: dev.env's WEBHOOK_ lines alone, and one endpoint, dev-idp's inbox `dev`, with a
        // secret of its own (whsec_ and 32 random bytes), also kept in the dev-secrets volume.
        #expect(scratch.contents("out/webhook-relay/settings.env") == "WEBHOOK_ALLOW_HTTP=true\nWEBHOOK_ALLOW_PRIVATE_ADDRESSES=true\n")
        let webhooks = try #require(scratch.contents("out/webhook-relay/webhooks"))
        #expect(webhooks == scratch.contents("made/webhooks"))
        let endpoints = try #require(try JSONSerialization.jsonObject(with: Data(webhooks.utf8)) as? [[String: Any]], "\(webhooks)")
        #expect(endpoints.count == 1)
        #expect(endpoints.first?["name"] as? String == "dev")
        #expect(endpoints.first?["url"] as? String == "http://dev-idp:9400/webhooks/dev")
        #expect(endpoints.first?["events"] as? [String] == ["*"])
        let secret = try #require(endpoints.first?["secret"] as? String)
        #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32, "a secret of another shape")
        // The next start without the dev profile (SECRETS_DIR empty, the dev secrets still in their
        // volume) is refused.
        let again = try await scratch.run()
        #expect(again.status == 1)
        #expect(again.error.contains("no dev profile answered"), "\(again.error)")
    }

    @Test("an answer a dev profile left at an earlier start is not taken for a running one")
    func staleAnswers() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write(Self.required, in: "made")
        for mark in [".request", ".alive", ".ready"] {
            try Data("an-earlier-start\n".utf8).write(to: scratch.root.appendingPathComponent("made/\(mark)"))
        }
        let result = try await scratch.run()
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.contains("no dev profile answered"), "\(result.error)")
        #expect(scratch.listing("token-issuer").isEmpty)
    }

    @Test("a full SECRETS_DIR beside the dev profile: its files and no dev settings, saying so")
    func givenWithTheDevProfile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write(Self.required, in: "given")
        let result = try await scratch.run(devProfile: true)
        #expect(result.status == 0, "\(result.error)")
        #expect(scratch.contents("out/token-issuer/signing-key.pem") == "given:signing-key.pem\n")
        #expect(!scratch.exists("out/token-verifier/settings.env"))
        #expect(!scratch.exists("out/webhook-relay/settings.env"))
        #expect(scratch.contents("out/webhook-relay/webhooks") == "[]\n", "the dev profile's endpoint reached a relay on your secrets")
        #expect(result.error.contains("token-verifier is not pointed at dev-idp"), "\(result.error)")
        #expect(result.error.contains("no nats/cluster.conf"), "\(result.error)")
        // dev-secrets, declined, says why at once (not after REQUEST_WAIT) and fails.
        #expect(scratch.contents("dev-secrets.log")?.contains("asked for no development secrets") == true,
                "\(scratch.contents("dev-secrets.log") ?? "")")
    }

    @Test("nats-auth seeds: an empty seed file (a run killed mid-write left it) is made anew; a seed there is kept; no temporary file stays")
    func seedsAreWrittenWhole() async throws {
        let natsAuth = try ServiceProcess.executable("nats-auth")
        let seeds = FileManager.default.temporaryDirectory.appendingPathComponent("seeds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: seeds, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: seeds) }
        try Data().write(to: seeds.appendingPathComponent("gateway.nk"))
        let first = try await runProcess(natsAuth.path, ["seeds", seeds.path])
        #expect(first.status == 0, "\(first.error)")
        let gateway = try String(contentsOf: seeds.appendingPathComponent("gateway.nk"), encoding: .utf8)
        #expect(gateway.hasPrefix("SU"), "the empty gateway.nk was kept: '\(gateway)'")
        let issuer = try String(contentsOf: seeds.appendingPathComponent("token-issuer.nk"), encoding: .utf8)
        let again = try await runProcess(natsAuth.path, ["seeds", seeds.path])
        #expect(again.status == 0, "\(again.error)")
        #expect(try String(contentsOf: seeds.appendingPathComponent("token-issuer.nk"), encoding: .utf8) == issuer, "a seed was replaced")
        #expect(try String(contentsOf: seeds.appendingPathComponent("gateway.nk"), encoding: .utf8) == gateway)
        let left = try FileManager.default.contentsOfDirectory(atPath: seeds.path).filter { !$0.hasSuffix(".nk") }
        #expect(left.isEmpty, "\(left)")
        let mode = try FileManager.default.attributesOfItem(atPath: seeds.appendingPathComponent("gateway.nk").path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test("the image's entrypoint: SETTINGS_FILE fills the variables the environment holds empty, never one that is set nor one it does not name, and skips lines that are not NAME=value")
    func entrypointSettings() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString).env")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("# dev\nGOOGLE_CLIENT_IDS=dev-google-client\nAPPLE_ISSUER=http://dev-idp:9400/apple\nKAKAO_ISSUER=a=b c\nnot a setting\n$(id)=x\nLD_PRELOAD=/tmp/x.so\n".utf8)
            .write(to: file)
        let entrypoint = DeployFiles.root.appendingPathComponent("deploy/docker/entrypoint").path
        let result = try await runProcess("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "SETTINGS_FILE=\(file.path)",
                                                           "GOOGLE_CLIENT_IDS=mine", "APPLE_ISSUER=", "KAKAO_ISSUER=",
                                                           "/bin/sh", entrypoint, "/bin/sh", "-c",
                                                           "printf '%s|%s|%s|%s' \"$GOOGLE_CLIENT_IDS\" \"$APPLE_ISSUER\" \"$KAKAO_ISSUER\" \"${LD_PRELOAD-unset}\""])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "mine|http://dev-idp:9400/apple|a=b c|unset")
        #expect(result.error.contains("LD_PRELOAD is not a variable this container takes"), "\(result.error)")
        #expect(result.error.contains("settings from \(file.path): APPLE_ISSUER KAKAO_ISSUER"), "\(result.error)")
        #expect(result.error.components(separatedBy: "is ignored").count == 3, "\(result.error)")
    }
}
