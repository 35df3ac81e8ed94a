// swift-tools-version: 6.2
import PackageDescription

/// Every Swift target builds in Swift 6 language mode with `any` spelled out.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// A C library from Debian, wrapped once in `Shared/<name>` (module map plus `shim.h`).
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Shared/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// A Swift library in `Shared/<name>`.
func shared(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/\(name)", swiftSettings: swiftSettings)
}

/// A service's library in `Services/<service>/<service>` and its thin executable in `Services/<service>/Main`.
func service(_ name: String, _ dependencies: [Target.Dependency], resources: [Resource]? = nil) -> [Target] {
    [
        .target(name: name, dependencies: dependencies, path: "Services/\(name)/\(name)",
                resources: resources, swiftSettings: swiftSettings),
        .executableTarget(name: "\(name)App", dependencies: [.target(name: name), "Runtime", "Logging"],
                          path: "Services/\(name)/Main", swiftSettings: swiftSettings),
    ]
}

func tests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, path: "Tests/\(name)", swiftSettings: swiftSettings)
}

let package = Package(
    name: "social-login",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "gateway", targets: ["GatewayApp"]),
        .executable(name: "token-verifier", targets: ["TokenVerifierApp"]),
        .executable(name: "member-service", targets: ["MemberServiceApp"]),
        .executable(name: "token-issuer", targets: ["TokenIssuerApp"]),
        .executable(name: "admin-api", targets: ["AdminAPIApp"]),
        .executable(name: "webhook-relay", targets: ["WebhookRelayApp"]),
        .executable(name: "dev-idp", targets: ["DevIDPApp"]),
        .executable(name: "nats-auth", targets: ["NATSAuth"]),
        .library(name: "SocialLoginClient", targets: ["SocialLoginClient"]),
    ],
    targets: [
        systemLibrary("CLibPQ", pkgConfig: "libpq", apt: "libpq-dev"),
        systemLibrary("COpenSSL", pkgConfig: "openssl", apt: "libssl-dev"),
        systemLibrary("CNats", pkgConfig: "libnats", apt: "libnats-dev"),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),

        shared("JSON", []),
        shared("Logging", ["JSON"]),
        shared("Collections", []),
        shared("Runtime", ["Collections", "Logging"]),
        shared("Crypto", ["COpenSSL"]),
        shared("JOSE", ["Crypto", "JSON"]),
        shared("NATS", ["CNats", "Collections", "JSON", "Logging"]),
        shared("Postgres", ["CLibPQ", "Collections", "JSON", "Logging"]),
        // IP addresses and CIDR ranges, and which addresses are not public destinations: the gateway's trusted proxies, the HTTP client's guard.
        shared("IPAddresses", []),
        shared("HTTPServer", ["CMicroHTTPD", "Logging"]),
        shared("HTTPClient", ["CCurl", "IPAddresses", "Logging"]),
        shared("Contracts", ["JSON"]),
        // Standard Webhooks: the `whsec_` secrets and the `v1` signatures the relay sends and receivers check.
        shared("Webhooks", ["Crypto"]),
        // The rules every service applies to the contracts' fields again (trusting no caller): profile fields, required strings, keys.
        shared("Rules", ["Contracts"]),
        shared("Metrics", []),
        shared("Messaging", ["Collections", "Contracts", "JSON", "JOSE", "NATS", "Crypto", "Logging", "Runtime", "Metrics"]),
        shared("Persistence", ["Contracts", "JSON", "Postgres", "NATS", "Logging", "Runtime"]),
        shared("Management", ["HTTPServer", "Metrics", "Logging", "Runtime"]),
        // The JSON API's conventions over HTTP, shared by the gateway and the admin-api: the envelope, bodies, canonical paths, statuses.
        shared("HTTPAPI", ["Contracts", "HTTPServer", "JSON"]),
        shared("Authentication", ["Collections", "Contracts", "Crypto", "JOSE", "JSON", "Logging", "Messaging", "NATS"]),
    ]
        + service("Gateway",
                  ["Logging", "Collections", "Runtime", "Contracts", "Rules", "JSON", "Messaging", "Metrics", "Management", "NATS", "HTTPServer", "HTTPAPI", "IPAddresses", "JOSE", "Authentication"],
                  resources: [.copy("Resources/openapi.yaml")])
        + service("TokenVerifier",
                  ["Logging", "Runtime", "Contracts", "Rules", "JSON", "Messaging", "Metrics", "Management", "NATS", "JOSE", "Crypto", "HTTPClient"])
        // Each database service's functions, compiled into its binary (no resource bundle to ship).
        + service("MemberService",
                  ["Logging", "Runtime", "Contracts", "Rules", "JSON", "Messaging", "Metrics", "Management", "NATS", "Postgres", "Persistence", "Authentication"],
                  resources: [.embedInCode("Adapters/SQL/functions.sql")])
        + service("TokenIssuer",
                  ["Logging", "Runtime", "Contracts", "Rules", "JSON", "Messaging", "Metrics", "Management", "NATS", "Postgres", "Persistence", "JOSE", "Crypto", "Authentication"],
                  resources: [.embedInCode("Adapters/SQL/functions.sql")])
        // The operators' API and the audit trail; its OpenAPI description served from the bundle.
        + service("AdminAPI",
                  ["Logging", "Runtime", "Contracts", "Rules", "JSON", "Crypto", "Messaging", "Metrics", "Management", "NATS", "Postgres",
                   "Persistence", "HTTPServer", "HTTPAPI"],
                  resources: [.copy("Resources/openapi.json")])
        // App backends' webhooks: the event stream delivered over HTTP, signed.
        + service("WebhookRelay",
                  ["Logging", "Runtime", "Contracts", "Crypto", "JSON", "Messaging", "Metrics", "Management", "NATS", "HTTPClient", "Webhooks"])
        + [.executableTarget(name: "NATSAuth", dependencies: ["Messaging", "Crypto"], path: "Services/NATSAuth",
                             swiftSettings: swiftSettings)]
        + service("DevIDP",
                  ["Logging", "Runtime", "HTTPServer", "JOSE", "JSON", "Crypto", "Webhooks"])
        + [
            .target(name: "TestSupport",
                    dependencies: ["Logging", "Collections", "Runtime", "Contracts", "JSON", "Messaging", "Management", "NATS", "Postgres", "HTTPClient", "Crypto",
                                   "Gateway", "TokenVerifier", "MemberService", "TokenIssuer", "DevIDP", "AdminAPI", "WebhookRelay", "Webhooks"],
                    path: "Tests/TestSupport", swiftSettings: swiftSettings),
            tests("RuntimeTests", ["Runtime", "Collections", "Logging"]),
            tests("ConfigurationTests", ["Runtime", "Messaging", "Postgres", "Contracts", "Crypto", "JOSE", "Logging", "TestSupport", "Gateway", "TokenVerifier", "MemberService", "TokenIssuer", "DevIDP", "AdminAPI", "WebhookRelay"]),
            .target(name: "TestVectors", dependencies: ["JOSE", "Crypto"], path: "Tests/TestVectors", swiftSettings: swiftSettings),
            tests("JOSETests", ["JOSE", "Crypto", "TestVectors"]),
            tests("ContractsTests", ["Contracts", "JSON"]),
            tests("RulesTests", ["Rules", "Contracts"]),
            tests("NATSTests", ["NATS", "Crypto", "Logging"]),
            tests("MessagingTests", ["Messaging", "NATS", "Contracts"]),
            tests("PersistenceTests", ["Persistence", "Contracts", "Logging"]),
            tests("PostgresTests", ["Postgres", "Logging", "TestSupport"]),
            // A raw HTTP/1.1 client on one socket, for what URLSession and libcurl hide or refuse to send.
            .target(name: "HTTPTesting", path: "Tests/HTTPTesting", swiftSettings: swiftSettings),
            tests("IPAddressesTests", ["IPAddresses"]),
            tests("HTTPServerTests", ["HTTPServer", "HTTPTesting", "Collections", "Logging"]),
            tests("HTTPClientTests", ["HTTPClient", "Collections", "Logging"]),
            tests("IntegrationTests", ["Authentication", "TestSupport", "Webhooks", "HTTPTesting", "TestVectors", "Contracts", "JSON", "Messaging", "Metrics", "Persistence", "NATS", "JOSE", "Crypto", "Postgres", "IPAddresses", "Logging", "DevIDP", "TokenVerifier", "Runtime", "Collections", "Management"]),
            // Services stood in for in process, behind ServiceCalling: the unit tests of the gateway and the use cases.
            .target(name: "ServiceStubs", dependencies: ["Contracts", "Logging", "Messaging"], path: "Tests/ServiceStubs", swiftSettings: swiftSettings),
            tests("AdminAPITests", ["AdminAPI", "TestSupport", "ServiceStubs", "Contracts", "Crypto", "JSON", "Logging", "Postgres", "Messaging"]),
            tests("GatewayTests", ["ServiceStubs", "Gateway", "Contracts", "Rules", "JSON", "JOSE", "Crypto", "HTTPServer", "HTTPAPI", "IPAddresses", "Logging", "Metrics", "Authentication", "Collections"]),
            tests("TokenIssuerTests", ["TokenIssuer", "TestSupport", "Postgres", "Contracts", "Crypto", "Logging", "Runtime", "Collections", "Authentication", "JOSE"]),
            tests("MemberServiceTests", ["MemberService", "TestSupport", "ServiceStubs", "Postgres", "Contracts", "JSON", "Runtime", "Authentication", "Crypto", "JOSE", "Logging", "Messaging"]),
            tests("TokenVerifierTests", ["TokenVerifier", "DevIDP", "Contracts", "JOSE", "Crypto", "HTTPClient", "Logging", "TestVectors", "HTTPTesting", "Collections"]),
            // The app-side client: Foundation only, so it builds for iOS, macOS and Linux.
            .target(name: "SocialLoginClient", path: "Client/SocialLoginClient", swiftSettings: swiftSettings),
            tests("SocialLoginClientTests", ["SocialLoginClient", "Contracts", "TestSupport", "DevIDP", "JSON", "Crypto", "HTTPServer", "HTTPClient", "Logging"]),
            tests("WebhookRelayTests", ["WebhookRelay", "Webhooks", "Contracts", "JSON", "TestVectors"]),
            tests("DeployTests", ["TestSupport", "Messaging", "JSON", "IPAddresses", "Collections"]),
        ]
)
