import Foundation
import Logging
import Postgres

/// Fresh databases for the tests, each bootstrapped with deploy/postgres/roles.sql, as a
/// deployment is: member-service, token-issuer and admin-api connect as their own roles.
public actor TestDatabases {
    /// The services' database roles (deploy/postgres/roles.sql).
    public enum Role: String, Sendable {
        case memberService = "member_service"
        case tokenIssuer = "token_issuer"
        case adminAPI = "admin_api"

        /// The test password (the bootstrap wants 16 characters at least).
        var password: String { "\(rawValue)-test-password" }
    }

    /// One at a time: the roles are the cluster's, and two bootstraps creating them at once collide.
    public static let shared = TestDatabases()

    /// The bootstrap before the next one's: an actor alone does not serialise work that awaits.
    private var previous: Task<Void, Never>?

    /// Creates a database as the administrator (of the test command's server unless `adminURL` names
    /// another), runs the bootstrap in it, returns its administrator URL.
    /// One after another (chained here before the first await, so no call overtakes another).
    func fresh(adminURL: String = TestEnvironment.adminDatabaseURL) async throws -> String {
        let before = previous
        let task = Task { () async throws -> String in
            _ = await before?.value
            return try await Self.make(adminURL: adminURL)
        }
        previous = Task { _ = try? await task.value }
        return try await task.value
    }

    private static func make(adminURL: String) async throws -> String {
        let admin = PostgresClient(configuration: try PostgresConfiguration(url: adminURL),
                                   logger: Logger(label: "test-admin", level: .error))
        let name = "auth_test_\(UUID().uuidString.prefix(8).lowercased())"
        do {
            _ = try await admin.query("CREATE DATABASE \(unescaped: name)")
        } catch {
            await admin.close()
            throw TestStackError("PostgreSQL at \(adminURL) is not usable (\(error)); run the tests with deploy/local/test")
        }
        await admin.close()
        let url = Self.replacing(adminURL, path: "/\(name)")
        // One statement at a time (the file separates them with blank lines): the parameterised
        // query protocol takes one each.
        let statements = try bootstrap().components(separatedBy: "\n\n")
            .filter { $0.split(separator: "\n").contains(where: { !$0.hasPrefix("--") }) }
        try await withDatabase(url) { database in
            for statement in statements { _ = try await database.query(PostgresQuery(unescaped: statement)) }
        }
        return url
    }

    /// roles.sql with its psql variables filled in (the test passwords contain no quote).
    static func bootstrap() throws -> String {
        let file = ConfigurationReference.repositoryRoot.appendingPathComponent("deploy/postgres/roles.sql")
        return try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: ":'member_password'", with: "'\(Role.memberService.password)'")
            .replacingOccurrences(of: ":'issuer_password'", with: "'\(Role.tokenIssuer.password)'")
            .replacingOccurrences(of: ":'admin_password'", with: "'\(Role.adminAPI.password)'")
    }

    static func serviceURL(_ adminURL: String, _ role: Role) -> String {
        guard var components = URLComponents(string: adminURL) else { return adminURL }
        components.user = role.rawValue
        components.password = role.password
        return components.string ?? adminURL
    }

    private static func replacing(_ url: String, path: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = path
        return components.string ?? url
    }
}
