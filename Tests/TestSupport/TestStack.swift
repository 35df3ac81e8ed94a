import AdminAPI
import Contracts
import Crypto
import DevIDP
import Foundation
import Gateway
import HTTPClient
import Logging
import Management
import MemberService
import Postgres
import Runtime
import Synchronization
import TokenIssuer
import TokenVerifier

/// The whole system in this process, against the real nats-server and PostgreSQL: the dev
/// identity provider, the four services, and the gateway on a free port, with a database of
/// its own. The shared one is started once per test process and shared by every suite (tests use
/// unique identities, so they do not meet); a suite that changes what the stack does for everyone
/// (rotates its signing key, stops its issuer) starts an ``isolated()`` one.
public actor TestStack {
    /// The stack every suite shares, on the test command's nats-server.
    public static let shared = TestStack()

    /// A stack of its own, on a nats-server of its own (with its own event stream) and a database of its
    /// own, for one suite: what it does to its services no other suite sees. It shares the shared stack's
    /// dev-idp, so the suite must not change that (a suite that must, runs one of its own). Keep it in a
    /// `static let` of the suite; it runs until the process exits. With `logger`, every part logs through it.
    /// With `databaseAdminURL`, its database is made on that server (a ``PostgresCluster`` of the test's own,
    /// which it may kill) instead of the test command's.
    /// With `requireServerNonce`, its verifier requires server nonces of those providers (`REQUIRE_SERVER_NONCE`).
    public static func isolated(logger: Logger? = nil, databaseAdminURL: String? = nil, requireServerNonce: Set<Provider> = []) -> TestStack {
        TestStack(natsURL: nil, logger: logger, databaseAdminURL: databaseAdminURL, requireServerNonce: requireServerNonce)
    }

    /// The nats-server the stack runs on; `nil`: one of its own, started with the stack.
    private let natsURL: String?
    private let logger: Logger?
    private let databaseAdminURL: String?
    private let requireServerNonce: Set<Provider>

    /// A stack on the nats-server at `natsURL`, with a dev-idp of its own. A stack of its own needs a
    /// nats-server of its own (its services would otherwise answer the shared stack's requests). With
    /// `logger`, every part logs through it (each under its own label: `gateway`, `token-verifier`, ...),
    /// so a test can read what each service wrote; without, at `TEST_LOG_LEVEL` (default warning) on
    /// standard error.
    public init(natsURL: String = TestEnvironment.natsURL, logger: Logger? = nil) {
        self.natsURL = natsURL
        self.logger = logger
        self.databaseAdminURL = nil
        self.requireServerNonce = []
    }

    private init(natsURL: String?, logger: Logger?, databaseAdminURL: String?, requireServerNonce: Set<Provider>) {
        self.natsURL = natsURL
        self.logger = logger
        self.databaseAdminURL = databaseAdminURL
        self.requireServerNonce = requireServerNonce
    }

    /// Client IDs the stack's verifier accepts.
    public enum ClientID {
        public static let googleIOS = "test-google-ios.apps.example.com"
        public static let googleWeb = "test-google-web.apps.example.com"
        public static let apple = "com.example.app"
        public static let kakao = "test-kakao-app"
        public static let appleServices = "com.example.app.web"
        public static let naver = "test-naver-client"
        public static let naverSecret = "test-naver-secret"
    }

    /// Apple team and key of the stack's client secrets; `PROVIDER_TOKEN_KEY` of its verifier.
    public static let appleTeamID = "TESTTEAM01"
    public static let appleKeyID = "TESTKEY001"
    public static let providerTokenKey: [UInt8] = Array(0..<32)
    /// The verifier's provider timeout: under the gateway's 5 s service timeout, so a slow provider is a
    /// 502 and not a 504; not 2 s, which dev-idp's one actor missed while every suite minted its first
    /// tokens at once (the Naver suites' rare 502s).
    public static let providerTimeout: Duration = .seconds(4)

    /// `TOKEN_ISSUER` and `TOKEN_AUDIENCE` of the stack's access tokens.
    public static let tokenIssuer = "https://auth.test.example"
    public static let tokenAudience = "test-api"
    /// The stack's refresh reuse grace window. As long as production's default: two concurrent refreshes of one
    /// token must reach the issuer within it, and the test process's cooperative pool stalls for seconds while
    /// the parallel suites start (3.2 s in a run where 2 s let the second of a concurrent pair be taken for a reuse).
    public static let reuseGrace: Duration = .seconds(10)
    /// How long the stack's next signing key is published before it signs.
    public static let signingKeyPublishLead: Duration = .seconds(6)
    /// The test admin of every stack's admin-api (`ADMIN_TOKENS_FILE`), and its token.
    public static let adminName = "test-admin"
    /// See ``adminName``.
    public static let adminToken = Digest.sha256Hex("test-admin-token-\(UUID().uuidString)")

    private var starting: Task<RunningStack, any Error>?

    /// The running stack, started on first use.
    public func running() async throws -> RunningStack {
        StallWatch.start()
        if let starting { return try await starting.value }
        let task = Task { [natsURL, logger, databaseAdminURL, requireServerNonce] in
            if let natsURL { return try await Self.start(natsURL: natsURL, logger: logger, devIDP: nil) }
            // The shared dev-idp serves it too (an isolated stack's suite changes nothing there): a second one
            // would make its keys while the other suites run, on the same two cores.
            let shared = try await Self.shared.running()
            guard let idpPort = URLComponents(string: shared.devIDPURL)?.port else { throw TestStackError("no dev-idp port") }
            return try await Self.start(natsURL: try await TestNATSServer.start(jetStream: true).url, logger: logger,
                                        devIDP: (idpPort, shared.idp), databaseAdminURL: databaseAdminURL,
                                        requireServerNonce: requireServerNonce)
        }
        starting = task
        return try await task.value
    }

    /// The running stack and a new member's Google session on it (``RunningStack/googleSession(sub:deviceId:)``):
    /// where a test of one signed-in member starts.
    public func runningWithSession() async throws -> (RunningStack, LoginResponse) {
        let stack = try await running()
        return (stack, try await stack.googleSession())
    }

    /// Starts a stack on `natsURL`, with `devIDP` as its identity provider, or a dev-idp of its own.
    private static func start(natsURL: String, logger: Logger?, devIDP: (port: Int, idp: DevIdentityProvider)?,
                              databaseAdminURL: String? = nil, requireServerNonce: Set<Provider> = []) async throws -> RunningStack {
        let started = Date()
        let logger = logger ?? Logger(label: "test", level: ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"]
                                        .flatMap(Logger.Level.init(name:)) ?? .warning, format: .text)
        let appleKeyFile = try Self.appleKeyFile.get()
        let (idpPort, idp) = if let devIDP { (devIDP.port, devIDP.idp) } else { try await launch { (signal: @escaping @Sendable ((Int, DevIdentityProvider)) -> Void) in
            var configuration = DevIDPConfiguration()
            configuration.port = 0
            configuration.naverClientID = ClientID.naver
            configuration.naverClientSecret = ClientID.naverSecret
            configuration.appleTeamID = appleTeamID
            configuration.appleKeyID = appleKeyID
            configuration.appleKeyFile = appleKeyFile
            configuration.appleClientID = ClientID.apple
            return DevIDPServer(configuration: configuration, logger: logger.named("dev-idp"), handlersOnItsThread: true) { signal(($0, $1)) }
        } }
        let databaseURL = if let databaseAdminURL {
            try await TestDatabases.shared.fresh(adminURL: databaseAdminURL)
        } else {
            try await freshDatabase()
        }

        var verifier = TokenVerifierConfiguration()
        verifier.natsURL = natsURL
        verifier.natsAccess = TestIdentities.access(for: .tokenVerifier)
        verifier.providers = [
            .google: OIDCProviderConfiguration(provider: .google, clientIDs: [ClientID.googleIOS, ClientID.googleWeb],
                                               issuers: [idp.issuer("google")], jwksURL: idp.jwksURL("google")),
            .apple: OIDCProviderConfiguration(provider: .apple, clientIDs: [ClientID.apple],
                                              issuers: [idp.issuer("apple")], jwksURL: idp.jwksURL("apple")),
            .kakao: OIDCProviderConfiguration(provider: .kakao, clientIDs: [ClientID.kakao],
                                              issuers: [idp.issuer("kakao")], jwksURL: idp.jwksURL("kakao"), nonceMode: .raw),
        ]
        verifier.providers[.google]?.algorithms = [.RS256, .ES256, .EdDSA]
        verifier.providers[.apple]?.clientIDs.insert(ClientID.appleServices)
        var naver = NaverConfiguration(clientID: ClientID.naver, clientSecret: ClientID.naverSecret)
        naver.profileURL = "http://127.0.0.1:\(idpPort)/naver/v1/nid/me"
        naver.tokenURL = "http://127.0.0.1:\(idpPort)/naver/oauth2.0/token"
        verifier.naver = naver
        var apple = AppleCredentials(teamID: appleTeamID, keyID: appleKeyID,
                                     privateKey: try AppleCredentials.loadPrivateKey(path: appleKeyFile))
        apple.tokenURL = "http://127.0.0.1:\(idpPort)/apple/auth/token"
        apple.revokeURL = "http://127.0.0.1:\(idpPort)/apple/auth/revoke"
        verifier.appleCredentials = apple
        verifier.providerTokenKey = providerTokenKey
        verifier.requireServerNonce = requireServerNonce
        verifier.providerTimeout = providerTimeout
        var member = MemberServiceConfiguration()
        member.natsURL = natsURL
        member.natsAccess = TestIdentities.access(for: .memberService)
        member.databaseURL = serviceURL(databaseURL, .memberService)
        var issuer = TokenIssuerConfiguration()
        issuer.natsURL = natsURL
        issuer.natsAccess = TestIdentities.access(for: .tokenIssuer)
        issuer.databaseURL = serviceURL(databaseURL, .tokenIssuer)
        issuer.issuer = tokenIssuer
        issuer.audience = tokenAudience
        issuer.refreshReuseGrace = reuseGrace
        issuer.refreshTokenKeyFiles = [try Self.refreshKeyFile.get()]
        issuer.signingKeyPublishLead = signingKeyPublishLead

        let services: [any Service] = [
            TokenVerifierServer(configuration: verifier, logger: logger.named("token-verifier")),
            MemberServer(configuration: member, logger: logger.named("member-service")),
        ]
        for service in services {
            Task {
                do { try await service.run() } catch { logger.critical("service stopped", ["error": String(describing: error)]) }
            }
        }
        // The issuer can be stopped and started again by a test (catch-up after downtime).
        let issuerService = ServiceHandle(logger: logger) { [issuer] ready in
            TokenIssuerServer(configuration: issuer, logger: logger.named("token-issuer"), onReady: ready)
        }
        await issuerService.start()
        let managementPort = PortBox()
        let gatewayPort = try await launch { (signal: @escaping @Sendable (Int) -> Void) in
            var configuration = GatewayConfiguration()
            configuration.management = ManagementConfiguration(host: "127.0.0.1", port: 0)
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.natsURL = natsURL
            configuration.natsAccess = TestIdentities.access(for: .gateway)
            configuration.tokenIssuer = tokenIssuer
            configuration.tokenAudience = tokenAudience
            configuration.rateLimitRPS = 0
            // Every suite's clients reach this gateway from 127.0.0.1, as the users behind one proxy do (a
            // run holds some 50 connections at its peak, the GatewayProxy pools of the client suites among
            // them): the per-address limit of 64 reset connections at random. ClientLimitTests tests the limit.
            configuration.connectionsPerAddress = 0
            configuration.refreshReuseGrace = reuseGrace
            return GatewayServer(configuration: configuration, logger: logger.named("gateway"), onListening: signal,
                                 onManagementListening: { managementPort.port.store($0, ordering: .releasing) })
        }
        // Told in no promised order: the management port is a service of the gateway's group beside the API's.
        try await waitUntil(timeout: .seconds(10), poll: .milliseconds(10), "the gateway's management port was not told") {
            managementPort.port.load(ordering: .acquiring) != 0
        }
        let adminPort = try await launch { (signal: @escaping @Sendable (Int) -> Void) in
            var configuration = AdminAPIConfiguration()
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.tokensFile = try? adminTokensFile.get()
            configuration.natsURL = natsURL
            configuration.natsAccess = TestIdentities.access(for: .adminAPI)
            configuration.databaseURL = serviceURL(databaseURL, .adminAPI)
            configuration.databasePoolSize = 2
            return AdminAPIServer(configuration: configuration, logger: logger.named("admin-api"), onListening: signal)
        }
        let events = try await EventLog.start(try await TestNATS.shared.connection(to: natsURL), since: started)
        let stack = RunningStack(gatewayURL: "http://127.0.0.1:\(gatewayPort)",
                                 managementURL: "http://127.0.0.1:\(managementPort.port.load(ordering: .acquiring))",
                                 adminURL: "http://127.0.0.1:\(adminPort)", devIDPURL: "http://127.0.0.1:\(idpPort)",
                                 idp: idp, databaseURL: databaseURL, natsURL: natsURL, eventLog: events,
                                 issuer: issuerService, issuerConfiguration: issuer)
        try await stack.waitUntilReady()
        try await warmUp(stack)
        return stack
    }

    /// One login per ID-token provider before any suite runs, so the verifier holds each key set. A first
    /// key-set fetch that times out on a busy machine is remembered as a failure for a while (no provider
    /// is hammered), which would fail every suite that logs in meanwhile: it is retried here instead.
    private static func warmUp(_ stack: RunningStack) async throws {
        for (provider, field, nonceField) in [("google", "idToken", "nonce"), ("apple", "identityToken", "rawNonce"), ("kakao", "idToken", "nonce")] {
            let warm = try await eventually(timeout: .seconds(60)) {
                // With a server nonce, so a stack that requires them (REQUIRE_SERVER_NONCE) warms up too; the
                // token carries it as the stack's verifier compares it (Kakao as it is, the others its SHA-256).
                let nonce = try await stack.post("/api/auth/nonce", json: NonceBody(deviceId: "warm-up")).data(NonceResponse.self).nonce
                let claim = provider == "kakao" ? nonce : Digest.sha256Hex(nonce)
                let token = try await stack.idToken(provider, sub: RunningStack.uniqueSubject("warm-up"), claims: ["nonce": .string(claim)])
                let body = Array(#"{"\#(field)": "\#(token)", "\#(nonceField)": "\#(nonce)", "deviceId": "warm-up"}"#.utf8)
                return try await stack.post("/api/auth/\(provider)-login", body: body).status == 200
            }
            guard warm else { throw TestStackError("the stack's verifier could not fetch \(provider)'s keys within 60 s") }
        }
    }

    /// Runs the service `make` builds in the background and waits for what it reports when listening.
    private static func launch<Value: Sendable>(
        _ make: (@escaping @Sendable (Value) -> Void) -> any Service
    ) async throws -> Value {
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        let service = make { continuation.yield($0) }
        Task {
            do { try await service.run() } catch { continuation.finish() }
        }
        for await value in stream { return value }
        throw TestStackError("a service of the test stack did not start")
    }

    /// The Apple Sign in key of every stack of the process (dev-idp checks client secrets with it).
    private static let appleKeyFile = Result { try writeAppleKey() }

    /// The token-issuer's refresh token key file (`REFRESH_TOKEN_KEY_FILE`): 48 random bytes, base64, as deployed.
    private static let refreshKeyFile = Result { () throws -> String in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("social-login-refresh-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("refresh-token.key")
        try Data((Data(SecureRandom.bytes(48)).base64EncodedString() + "\n").utf8).write(to: file)
        return file.path
    }

    /// The admin-api's tokens file: ``adminName`` with the SHA-256 of ``adminToken``.
    private static let adminTokensFile = Result { () throws -> String in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("social-login-admins-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("admin-tokens")
        try Data("\(adminName):\(Digest.sha256Hex(adminToken))\n".utf8).write(to: file)
        return file.path
    }

    /// A fresh Apple Sign in key (`.p8`-style PKCS#8 PEM) in a temporary directory.
    private static func writeAppleKey() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("social-login-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("AuthKey_\(appleKeyID).p8")
        try Data(try PrivateKey.generateP256().pemRepresentation.utf8).write(to: file)
        return file.path
    }

    /// A new, empty database on the test server, so the run starts from nothing, with the
    /// services' roles and schemas made by deploy/local/../postgres/roles.sql. Its URL is the
    /// administrator's (for tests that look inside); ``serviceURL(_:_:)`` gives a service's.
    public static func freshDatabase() async throws -> String {
        try await TestDatabases.shared.fresh()
    }

    /// The URL a service connects with to the database of `adminURL`: its own role.
    public static func serviceURL(_ adminURL: String, _ role: TestDatabases.Role) -> String {
        TestDatabases.serviceURL(adminURL, role)
    }
}

/// Why the test stack could not start.
public struct TestStackError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A port told by one callback and read after another.
private final class PortBox: Sendable {
    let port = Atomic<Int>(0)
}
