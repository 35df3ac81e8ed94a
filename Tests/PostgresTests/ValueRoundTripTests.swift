import Foundation
import Postgres
import Testing

extension PostgresServerTests {
    @Suite struct ValueRoundTripTests {
        @Test func everyValueTypeSurvivesATableRoundTrip() async throws {
            try await TestDatabase.withClient { client in
                let table = TestDatabase.uniqueName("values")
                _ = try await client.query("""
                    CREATE TABLE \(unescaped: table) (id int PRIMARY KEY, t text, i bigint, b bool, bin bytea, ts timestamptz,
                                           d float8, u uuid, j jsonb)
                    """)
                let text = "héllo 🌍 — 日本語 'single' \"double\" \\ back"
                let bytes: [UInt8] = [0, 1, 0, 255, 0, 0x5c, 0x78]
                let date = Date(timeIntervalSinceReferenceDate: 800_000_000.123456)
                let uuid = UUID()
                let json = PostgresValue.json(#"{"a": [1, "ü"]}"#)
                let inserted = try await client.query("""
                    INSERT INTO \(unescaped: table) (id, t, i, b, bin, ts, d, u, j)
                    VALUES (\(1), \(text), \(Int64.min), \(true), \(bytes), \(date), \(-0.1), \(uuid), \(json))
                    """)
                #expect(inserted.affectedRows == 1)
                // Each type's nil is NULL.
                _ = try await client.query("""
                    INSERT INTO \(unescaped: table) (id, t, i, b, bin, ts, d, u, j)
                    VALUES (\(2), \(String?.none), \(Int64?.none), \(Bool?.none), \([UInt8]?.none), \(Date?.none), \(Double?.none),
                            \(UUID?.none), \(PostgresValue.null))
                    """)

                let rows = try await client.query("SELECT * FROM \(unescaped: table) ORDER BY id")
                #expect(rows.count == 2)
                let row = try #require(rows.first)
                #expect(try row.string("t") == text)
                #expect(try row.int("i") == Int64.min)
                #expect(try row.bool("b") == true)
                #expect(try row.bytes("bin") == bytes)
                #expect(try row.date("ts") == date)
                #expect(try row.double("d") == -0.1)
                #expect(try row.uuid("u") == uuid)
                #expect(try row.string("j") == #"{"a": [1, "ü"]}"#)
                #expect(try row.int(at: 0) == 1)

                let empty = rows.rows[1]
                for column in ["t", "i", "b", "bin", "ts", "d", "u", "j"] {
                    #expect(empty.isNull(column), "\(column)")
                }
                #expect(try empty.optionalString("t") == nil)
                #expect(try empty.optionalDate("ts") == nil)
                #expect(throws: PostgresError.self) { try empty.string("t") }
                _ = try await client.query("DROP TABLE \(unescaped: table)")
            }
        }

        @Test func scalarEdgeCasesRoundTrip() async throws {
            try await TestDatabase.withClient { client in
                let row = try #require(try await client.query(
                    """
                    SELECT \(Int64.max)::bigint AS max, \(false)::bool AS no, \([UInt8]())::bytea AS empty,
                           \(-Double.infinity)::float8 AS inf, \(Double.nan)::float8 AS nan, \("")::text AS blank
                    """).first)
                #expect(try row.int("max") == Int64.max)
                #expect(try row.bool("no") == false)
                #expect(try row.bytes("empty") == [])
                #expect(try row.double("inf") == -.infinity)
                #expect(try row.double("nan").isNaN)
                #expect(try row.string("blank") == "")
                #expect(!row.isNull("blank"))
            }
        }

        @Test(arguments: [
            800_000_000.123456, 0.000001, -1_234_567_890.654321, 1_000_000_000.999999,
        ])
        func timestampsKeepMicroseconds(sinceReference: Double) async throws {
            try await TestDatabase.withClient { client in
                let date = Date(timeIntervalSinceReferenceDate: sinceReference)
                let row = try #require(try await client.query(
                    "SELECT \(date)::timestamptz AS t, extract(microseconds FROM \(date)::timestamptz)::bigint % 1000000 AS micros").first)
                #expect(try row.date("t") == date)
                let expected = Int64((sinceReference * 1_000_000).rounded()) % 1_000_000
                #expect(try row.int("micros") == (expected + 1_000_000) % 1_000_000)
            }
        }

        @Test func datesOutsideFourDigitYearsAreBoundAsTheEdgeNeverATrap() async throws {
            try await TestDatabase.withClient { client in
                for (seconds, year) in [(-1e13, 1), (-Double(Int64.max), 1), (1e13, 9999), (Double.infinity, 9999)] {
                    let row = try #require(try await client.query(
                        "SELECT extract(year FROM \(Date(timeIntervalSince1970: seconds)) AT TIME ZONE 'UTC')::bigint AS year").first)
                    #expect(try row.int("year") == Int64(year), "\(seconds)")
                }
            }
        }

        @Test func serverTimestampsParseAsUTC() async throws {
            try await TestDatabase.withClient { client in
                let row = try #require(try await client.query(
                    "SELECT '2024-02-29 23:59:58.5-02:00'::timestamptz AS t, now() AS now, current_setting('TimeZone') AS zone").first)
                // 2024-03-01T01:59:58.5Z
                #expect(try row.date("t") == Date(timeIntervalSince1970: 1_709_258_398.5))
                #expect(try row.string("zone") == "UTC")
                #expect(abs(try row.date("now").timeIntervalSinceNow) < 5)
            }
        }

        @Test func decodingErrorsNameTheColumnNotTheValue() async throws {
            try await TestDatabase.withClient { client in
                let row = try #require(try await client.query("SELECT 'secret-token'::text AS token").first)
                let error = #expect(throws: PostgresError.self) { try row.int("token") }
                #expect(error?.description.contains("token") == true)
                #expect(error?.description.contains("secret-token") == false)
                #expect(throws: PostgresError.self) { try row.string("missing") }
            }
        }

        @Test func textWithNulIsRejectedNotTruncated() async throws {
            try await TestDatabase.withClient { client in
                let error = await #expect(throws: PostgresError.self) {
                    try await client.query("SELECT \("a\u{0}b")::text AS v")
                }
                #expect(error?.isUnavailable == false)
            }
        }
    }
}
