import Postgres
import Testing

@Suite struct ConfigurationURLTests {
    @Test func parsesEveryPart() throws {
        let configuration = try PostgresConfiguration(
            url: "postgres://auth:s3cret@db.example:6543/members?sslmode=require&application_name=member-service")
        #expect(configuration.user == "auth")
        #expect(configuration.password == "s3cret")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.database == "members")
        #expect(configuration.tlsMode == .require)
        #expect(configuration.applicationName == "member-service")
    }

    @Test func decodesPercentEncodedPassword() throws {
        let configuration = try PostgresConfiguration(url: "postgresql://app%40corp:p%40ss%3Aw%2Frd%25@localhost/db")
        #expect(configuration.user == "app@corp")
        #expect(configuration.password == "p@ss:w/rd%")
        #expect(configuration.host == "localhost")
    }

    @Test func appliesDefaults() throws {
        let configuration = try PostgresConfiguration(url: "postgres://auth@localhost")
        #expect(configuration.port == 5432)
        #expect(configuration.database == "auth")
        #expect(configuration.password == nil)
        #expect(configuration.tlsMode == .prefer)
        #expect(configuration.poolSize == 8)
        #expect(configuration.connectTimeout == .seconds(5))
    }

    @Test func readsIPv6HostAndSocketDirectory() throws {
        let v6 = try PostgresConfiguration(url: "postgres://u@[::1]:5433/d")
        #expect(v6.host == "::1")
        #expect(v6.port == 5433)
        let socket = try PostgresConfiguration(url: "postgres://u@%2Ftmp%2Fpg/d")
        #expect(socket.host == "/tmp/pg")
    }

    @Test(arguments: [
        ("mysql://u:p@h/d", "postgres://"),
        ("postgres://u:p@/d", "missing host"),
        ("postgres://:p@h/d", "missing user"),
        ("postgres://u:p@h:99999/d", "port '99999'"),
        ("postgres://u:p@h:abc/d", "port 'abc'"),
        ("postgres://u:p@h/d?sslmode=maybe", "sslmode 'maybe'"),
        ("postgres://u:p@h/d?foo=1", "unsupported parameter 'foo'"),
        ("postgres://u:p%zz@h/d", "password has an invalid percent-escape"),
    ])
    func rejectsBadURLsWithClearErrors(url: String, expected: String) throws {
        let error = #expect(throws: PostgresError.self) { try PostgresConfiguration(url: url) }
        let description = try #require(error).description
        #expect(description.contains(expected), "\(description)")
    }

    @Test func errorsNeverContainThePassword() throws {
        let urls = ["postgres://u:hunter2@h:notaport/d", "postgres://u:hunter2@h/d?bad=1", "postgres://u:hunter2@/d"]
        for url in urls {
            let error = #expect(throws: PostgresError.self) { try PostgresConfiguration(url: url) }
            #expect(error?.description.contains("hunter2") == false)
        }
        let configuration = try PostgresConfiguration(url: "postgres://u:hunter2@h/d")
        #expect(!configuration.description.contains("hunter2"))
    }
}
