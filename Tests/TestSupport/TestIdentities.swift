import Foundation
import Messaging
import NATS
import Runtime
import Synchronization

/// The NATS identities the tests connect with. The test command makes their seeds
/// (`nats-auth seeds`, plus an unrestricted `tests.nk` for the tests' own inspecting connections)
/// and starts nats-server with the authorization made from them; it exports the directory as
/// `NATS_IDENTITIES_DIR`. Unset, everything connects without credentials (a server without auth).
public enum TestIdentities {
    /// `NATS_IDENTITIES_DIR`, or nil.
    public static var directory: String? {
        ProcessInfo.processInfo.environment["NATS_IDENTITIES_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// How `identity` connects: its seed from the directory and its inbox prefix.
    public static func access(for identity: BusIdentity) -> NATSConnection.Access {
        NATSConnection.Access(nkey: credentials(file: "\(identity.rawValue).nk"), inboxPrefix: identity.inboxPrefix)
    }

    /// The environment that gives the executable `service` (`token-issuer`, ...) its identity:
    /// `NATS_NKEY_SEED_FILE`, when the tests run with identities.
    public static func environment(for service: String) -> [String: String] {
        guard let directory, let identity = BusIdentity(rawValue: service) else { return [:] }
        return ["NATS_NKEY_SEED_FILE": "\(directory)/\(identity.rawValue).nk"]
    }

    /// How the tests' own connections connect: the unrestricted test user, with the default inbox.
    public static var tests: NATSConnection.Access {
        NATSConnection.Access(nkey: credentials(file: "tests.nk"))
    }

    /// A connection configuration for the tests' own use on `url`.
    public static func configuration(url: String = TestEnvironment.natsURL, name: String) -> NATSConnection.Configuration {
        NATSConnection.Configuration(url: url, name: name, access: tests)
    }

    /// nats-server's authorization for the directory's keys (and the test user), for private servers;
    /// nil without a directory.
    public static func serverAuthorization() throws -> String? {
        guard let directory else { return nil }
        var keys: [BusIdentity: String] = [:]
        for identity in BusIdentity.allCases {
            keys[identity] = try seed("\(directory)/\(identity.rawValue).nk")?.publicKey
        }
        let tests = try seed("\(directory)/tests.nk").map { BusAuthorization.Unrestricted(publicKey: $0.publicKey, name: "tests") }
        return BusAuthorization.serverConfiguration(publicKeys: keys, unrestricted: tests.map { [$0] } ?? [])
    }

    private static func credentials(file: String) -> NATSConnection.NKeyCredentials? {
        guard let directory else { return nil }
        let path = "\(directory)/\(file)"
        if let known = read.withLock({ $0[path] }) { return known }
        // Read once per process: every test connection asks, and ~500 suites starting at once made the
        // reads (a file, base32, a key) hold Swift's cooperative threads for seconds.
        let credentials = try? seed(path)
        read.withLock { $0[path] = credentials }
        return credentials
    }

    /// The credentials read so far, by seed file.
    private static let read = Mutex<[String: NATSConnection.NKeyCredentials?]>([:])

    /// The key of a seed file, read as a service reads its `NATS_NKEY_SEED_FILE`.
    private static func seed(_ path: String) throws -> NATSConnection.NKeyCredentials? {
        try EnvironmentReader(["NATS_NKEY_SEED_FILE": path]).natsAccess(for: .operator).nkey
    }
}
