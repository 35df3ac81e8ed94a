import Crypto
import Foundation
import Contracts
import DevIDP
import Gateway
import JOSE
import MemberService
import Postgres
import Runtime
import Testing
import TokenIssuer
import TokenVerifier

/// Every service reads its variables (docs/configuration.md) with their defaults, and a bad value
/// stops it at start with an error naming the variable.
@Suite("Service configuration from the environment")
struct ServiceConfigurationTests {
    @Test("defaults match the configuration reference")
    func defaults() throws {
        let empty = EnvironmentReader([:])
        let gateway = try GatewayConfiguration(environment: empty)
        #expect(gateway.host == "0.0.0.0" && gateway.port == 8080)
        #expect(gateway.natsURL == "nats://127.0.0.1:4222")
        #expect(gateway.tokenIssuer == "http://localhost:8080" && gateway.tokenAudience == "api")
        #expect(gateway.trustedProxies.isEmpty)
        let behindProxies = try GatewayConfiguration(environment: EnvironmentReader(["TRUSTED_PROXIES": "10.0.0.0/8, fd00::/8,192.0.2.7"]))
        #expect(behindProxies.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8", "192.0.2.7/32"])
        let issuer = try TokenIssuerConfiguration(environment: empty)
        #expect(issuer.databaseURL == "postgres://auth:auth@127.0.0.1:5432/auth")
        #expect(issuer.accessTokenTTL == .seconds(900))
        #expect(issuer.refreshTokenTTL == .seconds(2_592_000))
        #expect(issuer.refreshReuseGrace == .seconds(10))
        #expect(issuer.signingKeyFiles == nil)
        #expect(issuer.outboxPollInterval == .seconds(1))
        let verifier = try TokenVerifierConfiguration(environment: empty)
        #expect(verifier.providers.isEmpty, "no provider is enabled without client IDs")
        #expect(verifier.clockSkew == .seconds(60))
        _ = try MemberServiceConfiguration(environment: empty)
        _ = try DevIDPConfiguration(environment: empty)
    }

    @Test("a provider is enabled by its client IDs, with the documented defaults for the rest")
    func providers() throws {
        let verifier = try TokenVerifierConfiguration(environment: EnvironmentReader([
            "GOOGLE_CLIENT_IDS": "ios.apps.googleusercontent.com, web.apps.googleusercontent.com",
            "APPLE_CLIENT_IDS": "com.example.app",
            "KAKAO_CLIENT_IDS": "kakao-app", "KAKAO_ISSUER": "http://127.0.0.1:9400/kakao",
        ]))
        let google = try #require(verifier.providers[.google])
        #expect(google.clientIDs == ["ios.apps.googleusercontent.com", "web.apps.googleusercontent.com"])
        #expect(google.issuers == ["https://accounts.google.com", "accounts.google.com"])
        #expect(google.jwksURL == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(google.algorithms == [.RS256])
        let apple = try #require(verifier.providers[.apple])
        #expect(apple.issuers == ["https://appleid.apple.com"])
        #expect(apple.jwksURL == "https://appleid.apple.com/auth/keys")
        #expect(verifier.providers[.kakao]?.issuers == ["http://127.0.0.1:9400/kakao"])
        #expect(verifier.providers[.naver] == nil)
    }

    @Test("a bad value names its variable", arguments: [
        ("GATEWAY_PORT", "eighty"), ("NATS_URL", "localhost"), ("CLOCK_SKEW", "-1"),
        ("ACCESS_TOKEN_TTL", "0"), ("DATABASE_URL", "mysql://x/y"), ("GOOGLE_ALGORITHMS", "HS256"),
        ("SIGNING_KEY_FILE", "/nonexistent/key.pem"), ("REFRESH_REUSE_GRACE", "ten"),
        ("TRUSTED_PROXIES", "10.0.0.0/8, proxy.internal"), ("TRUSTED_PROXIES", "10.0.0.0/33"),
        ("PROVIDER_TOKEN_KEY", "c2hvcnQ="), ("DATABASE_URL", "postgres://auth:secret@db/auth?sslmode=sometimes"), ("DATABASE_URL", "postgres://auth@db/auth?foo=1"), ("PROVIDER_TOKEN_KEY", "not base64 at all!"), ("OUTBOX_POLL_INTERVAL", "0"),
        ("MANAGEMENT_PORT", "0"), ("MANAGEMENT_PORT", "nine"), ("EVENTS_MAX_AGE", "3600"), ("EVENTS_REPLICAS", "6"),
        ("PROVIDER_TOKEN_KEY_FILE", "/nonexistent/provider-token-key"), ("DATABASE_PASSWORD_FILE", "/nonexistent/password"),
    ])
    func badValues(_ variable: String, _ value: String) throws {
        var values = [variable: value]
        if variable.hasPrefix("GOOGLE_") { values["GOOGLE_CLIENT_IDS"] = "x" }
        let environment = EnvironmentReader(values)
        var failures: [ConfigurationError] = []
        func attempt(_ body: () throws -> Void) {
            do { try body() } catch let error as ConfigurationError { failures.append(error) } catch {
                Issue.record("\(variable)=\(value) failed with \(error), not a ConfigurationError naming the variable")
            }
        }
        attempt { _ = try GatewayConfiguration(environment: environment) }
        attempt { _ = try TokenIssuerConfiguration(environment: environment) }
        attempt { _ = try TokenVerifierConfiguration(environment: environment) }
        attempt { _ = try MemberServiceConfiguration(environment: environment) }
        #expect(!failures.isEmpty, "no service refused \(variable)=\(value)")
        #expect(failures.allSatisfy { $0.variable == variable }, "\(failures)")
    }

    @Test("PROVIDER_TOKEN_KEY takes base64 or base64url, padded or not")
    func providerTokenKeyEncodings() throws {
        let key: [UInt8] = (0..<32).map { UInt8(255 - $0 * 3) }  // bytes whose encodings hold + / - _
        let base64 = Data(key).base64EncodedString()
        let base64URL = Base64URL.encode(key)
        #expect(base64.contains("+") || base64.contains("/"))
        for encoded in [base64, base64URL, base64URL + "="] {
            let verifier = try TokenVerifierConfiguration(environment: EnvironmentReader(["PROVIDER_TOKEN_KEY": encoded]))
            #expect(verifier.providerTokenKey == key, "\(encoded)")
        }
    }

    @Test("secrets come from files: PROVIDER_TOKEN_KEY_FILE, and DATABASE_PASSWORD_FILE in place of the URL's password")
    func secretFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key: [UInt8] = (0..<32).map { UInt8($0 * 7 % 256) }
        let keyFile = directory.appendingPathComponent("provider-token-key")
        // Saved on Windows: the CRLF line end goes too.
        try Data((Data(key).base64EncodedString() + "\r\n").utf8).write(to: keyFile)
        let verifier = try TokenVerifierConfiguration(environment: EnvironmentReader(["PROVIDER_TOKEN_KEY_FILE": keyFile.path]))
        #expect(verifier.providerTokenKey == key)
        // Both ways at once is refused, naming the file variable.
        #expect { try TokenVerifierConfiguration(environment: EnvironmentReader(["PROVIDER_TOKEN_KEY_FILE": keyFile.path,
                                                                                 "PROVIDER_TOKEN_KEY": Data(key).base64EncodedString()])) }
            throws: { ($0 as? ConfigurationError)?.variable == "PROVIDER_TOKEN_KEY_FILE" }
        // A bad key in the file names the file variable, never the contents.
        let badFile = directory.appendingPathComponent("bad-key")
        try Data("c2hvcnQ=\n".utf8).write(to: badFile)
        #expect { try TokenVerifierConfiguration(environment: EnvironmentReader(["PROVIDER_TOKEN_KEY_FILE": badFile.path])) }
            throws: { ($0 as? ConfigurationError).map { $0.variable == "PROVIDER_TOKEN_KEY_FILE" && !$0.description.contains("c2hvcnQ") } ?? false }

        // Through a symbolic link, as Kubernetes mounts secrets; a password keeps its spaces, only the line end goes.
        let passwordTarget = directory.appendingPathComponent("password-data")
        try Data(" p@ss:w/rd%1 \n".utf8).write(to: passwordTarget)
        let passwordFile = directory.appendingPathComponent("password")
        try FileManager.default.createSymbolicLink(at: passwordFile, withDestinationURL: passwordTarget)
        let environment = EnvironmentReader(["DATABASE_URL": "postgres://member@db:5432/auth?sslmode=disable",
                                             "DATABASE_PASSWORD_FILE": passwordFile.path])
        let member = try MemberServiceConfiguration(environment: environment)
        let issuer = try TokenIssuerConfiguration(environment: environment)
        for url in [member.databaseURL, issuer.databaseURL] {
            let parsed = try PostgresConfiguration(url: url)
            #expect(parsed.user == "member" && parsed.password == " p@ss:w/rd%1 " && parsed.host == "db" && parsed.database == "auth")
        }
        // A password in the URL and a password file: which one is meant is a guess, so it is refused.
        #expect { try MemberServiceConfiguration(environment: EnvironmentReader(["DATABASE_URL": "postgres://member:other@db/auth",
                                                                                 "DATABASE_PASSWORD_FILE": passwordFile.path])) }
            throws: { ($0 as? ConfigurationError)?.variable == "DATABASE_PASSWORD_FILE" }
        // A linked file over the limit is refused, whatever size the link reports.
        let large = directory.appendingPathComponent("large")
        try Data(repeating: 65, count: 100_000).write(to: large)
        let largeLink = directory.appendingPathComponent("large-link")
        try FileManager.default.createSymbolicLink(at: largeLink, withDestinationURL: large)
        #expect { try TokenVerifierConfiguration(environment: EnvironmentReader(["PROVIDER_TOKEN_KEY_FILE": largeLink.path])) }
            throws: { ($0 as? ConfigurationError).map { $0.variable == "PROVIDER_TOKEN_KEY_FILE" && $0.problem.contains("larger") } ?? false }
        #expect { try MemberServiceConfiguration(environment: EnvironmentReader(["DATABASE_URL": "postgres://db/auth",
                                                                                 "DATABASE_PASSWORD_FILE": passwordFile.path])) }
            throws: { ($0 as? ConfigurationError)?.variable == "DATABASE_URL" }
    }

    @Test("MANAGEMENT_PORT: the gateway's defaults to 9090, the others' is off; EVENTS_* reach the services")
    func managementAndEvents() throws {
        #expect(try GatewayConfiguration(environment: EnvironmentReader([:])).management.port == 9090)
        #expect(try MemberServiceConfiguration(environment: EnvironmentReader([:])).management.port == nil)
        let environment = EnvironmentReader(["MANAGEMENT_PORT": "9311", "MANAGEMENT_HOST": "127.0.0.1",
                                             "EVENTS_MAX_AGE": "87000", "EVENTS_REPLICAS": "3"])
        let verifier = try TokenVerifierConfiguration(environment: environment)
        #expect(verifier.management.port == 9311 && verifier.management.host == "127.0.0.1")
        #expect(verifier.events.maxAge == .seconds(87_000) && verifier.events.replicas == 3)
        #expect(try TokenIssuerConfiguration(environment: environment).events.replicas == 3)
        #expect(try MemberServiceConfiguration(environment: environment).events.maxAge == .seconds(87_000))
    }

    @Test("SIGNING_KEY_FILE takes files and directories; SIGNING_KEY_ROTATION with it is refused, naming it")
    func signingKeyFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signing-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.pem")
        try Data(try PrivateKey.generateP256().pemRepresentation.utf8).write(to: file)
        let issuer = try TokenIssuerConfiguration(environment: EnvironmentReader(["SIGNING_KEY_FILE": "\(directory.path), \(file.path)"]))
        #expect(issuer.signingKeyFiles == [directory.path, file.path])
        #expect { try TokenIssuerConfiguration(environment: EnvironmentReader(["SIGNING_KEY_FILE": file.path, "SIGNING_KEY_ROTATION": "86400"])) }
            throws: { ($0 as? ConfigurationError)?.variable == "SIGNING_KEY_ROTATION" }
    }

    @Test("a bad DATABASE_URL stops the service at start, naming the variable and never the password", arguments: [
        ("postgres://auth:s3cr3t-pw@db:5432/auth?sslmode=sometimes", "s3cr3t"),
        ("postgres://u:Xy@z?Secret9@db/x", "Secret9"),
        ("postgres://u:pa@ss:w0rdz/x@db/d", "w0rdz"),
        ("postgres://u:Xy@z?Secret=1@db/x", "Secret"),
        ("postgres://u:s3cr3t?x=1@db/d", "s3cr3t"),
        ("postgres://u:s3cr3t@db:54x32/d", "s3cr3t"),
    ])
    func databaseURL(_ url: String, _ secret: String) throws {
        let environment = EnvironmentReader(["DATABASE_URL": url])
        for read in [{ _ = try MemberServiceConfiguration(environment: environment) },
                     { _ = try TokenIssuerConfiguration(environment: environment) }] as [() throws -> Void] {
            #expect { try read() } throws: { error in
                guard let error = error as? ConfigurationError else { return false }
                return error.variable == "DATABASE_URL" && !error.description.contains(secret)
            }
        }
    }

    @Test("the Apple key file is read like every secret file: a regular file, bounded, never a device")
    func appleKeyFileIsBounded() throws {
        let large = FileManager.default.temporaryDirectory.appendingPathComponent("apple-\(UUID().uuidString).p8")
        try Data(repeating: 65, count: 100_000).write(to: large)
        defer { try? FileManager.default.removeItem(at: large) }
        for path in [large.path, "/dev/zero", FileManager.default.temporaryDirectory.path] {
            #expect { try AppleCredentials.loadPrivateKey(path: path) }
                throws: { ($0 as? ConfigurationError)?.variable == "APPLE_PRIVATE_KEY_FILE" }
        }
    }
}
