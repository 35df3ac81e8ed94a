import Foundation
import NATS
import Testing

/// A fresh bucket on the test server (`maxValueSize` bytes a value at most), deleted afterwards.
private func withBucket(maxValueSize: Int? = nil, _ body: (NATSConnection, KeyValueBucket) async throws -> Void) async throws {
    try await withBucketName { connection, name in
        try await connection.jetStream.ensureKeyValue(name, maxValueSize: maxValueSize)
        try await body(connection, try await connection.jetStream.keyValue(name))
    }
}

/// A fresh bucket name on the test server, for `body` to make the bucket as it likes; the bucket is deleted afterwards.
private func withBucketName(_ body: (NATSConnection, String) async throws -> Void) async throws {
    let connection = try await TestNATS.connect("key-value-tests")
    let name = TestNATS.unique("KV").replacingOccurrences(of: ".", with: "_")
    do {
        try await body(connection, name)
    } catch {
        try? await connection.jetStream.deleteStream(name: "KV_\(name)")
        await connection.drainAndClose()
        throw error
    }
    try await connection.jetStream.deleteStream(name: "KV_\(name)")
    await connection.drainAndClose()
}

/// The webhook relay's claims and leases change only by compare-and-set: of two writers that read the same revision,
/// one wins and the other is told, never both.
@Suite("Key-value buckets: compare-and-set")
struct KeyValueBucketTests {
    @Test("create writes a key that has no value, and only then; update writes only at the revision read")
    func compareAndSet() async throws {
        try await withBucket { _, bucket in
            #expect(try await bucket.get("slot.a") == nil)
            let first = try #require(try await bucket.create("slot.a", Array("one".utf8)))
            #expect(try await bucket.create("slot.a", Array("other".utf8)) == nil, "a second create won")
            let read = try await bucket.get("slot.a")
            #expect(read?.value == Array("one".utf8) && read?.revision == first)

            let second = try #require(try await bucket.update("slot.a", Array("two".utf8), revision: first))
            #expect(second > first)
            #expect(try await bucket.update("slot.a", Array("stale".utf8), revision: first) == nil, "a stale revision won")
            #expect(try await bucket.get("slot.a")?.value == Array("two".utf8))

            try await bucket.delete("slot.a")
            #expect(try await bucket.get("slot.a") == nil)
            #expect(try await bucket.update("slot.a", Array("late".utf8), revision: second) == nil, "an update after the delete won")
            #expect(try await bucket.create("slot.a", Array("again".utf8)) != nil, "a deleted key cannot be created again")
        }
    }

    @Test("of 8 writers racing from one revision, exactly one wins")
    func race() async throws {
        try await withBucket { _, bucket in
            let start = try #require(try await bucket.create("lease.a", Array("0".utf8)))
            let wins = await withTaskGroup(of: Bool.self) { group in
                for writer in 0..<8 {
                    group.addTask { (try? await bucket.update("lease.a", Array("\(writer)".utf8), revision: start)) != nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)
        }
    }

    @Test("a value over the bucket's limit is refused; making the bucket again with other limits leaves it as it is")
    func limits() async throws {
        // The limit is the stream's largest message, headers included (a compare-and-set carries one).
        try await withBucket(maxValueSize: 128) { connection, bucket in
            await #expect(throws: NATSError.self) { _ = try await bucket.create("slot.big", Array(repeating: 65, count: 1_024)) }
            #expect(try await bucket.get("slot.big") == nil)
            #expect(try await bucket.create("slot.small", Array("fits".utf8)) != nil)
            try await connection.jetStream.ensureKeyValue(bucket.name, maxValueSize: 4_096)
            await #expect(throws: NATSError.self) { _ = try await bucket.create("slot.big", Array(repeating: 65, count: 1_024)) }
        }
    }

    @Test("a bucket that allows direct gets (made by js_CreateKeyValue, as the release of stop 40 did) is not bound, and is left as it is, until the stream-admin turns them off")
    func bucketWithDirectGets() async throws {
        try await withBucketName { connection, name in
            // The stream as js_CreateKeyValue of nats.c 3.4.1 asks for it.
            func stream(allowDirect: Bool) -> [UInt8] {
                Array(#"{"name":"KV_\#(name)","subjects":["$KV.\#(name).>"],"retention":"limits","max_msgs_per_subject":1,"discard":"new","#
                      .utf8) + Array(#""storage":"file","num_replicas":1,"deny_delete":true,"allow_rollup_hdrs":true,"allow_direct":\#(allowDirect)}"#.utf8)
            }
            func set(_ verb: String, allowDirect: Bool) async throws {
                let answer = try await connection.request("$JS.API.STREAM.\(verb).KV_\(name)", stream(allowDirect: allowDirect), timeout: .seconds(5))
                #expect(!String(decoding: answer.payload, as: UTF8.self).contains(#""error""#), "\(verb): \(String(decoding: answer.payload, as: UTF8.self))")
            }
            try await set("CREATE", allowDirect: true)
            let refusal = await #expect(throws: NATSError.self) { _ = try await connection.jetStream.keyValue(name) }
            #expect(String(describing: refusal).contains("nats stream edit KV_\(name) --no-allow-direct"), "\(String(describing: refusal))")
            #expect(try await connection.jetStream.ensureKeyValue(name), "not told the bucket allows direct gets")
            await #expect(throws: NATSError.self) { _ = try await connection.jetStream.keyValue(name) }

            try await set("UPDATE", allowDirect: false)
            #expect(try await connection.jetStream.ensureKeyValue(name) == false)
            let bucket = try await connection.jetStream.keyValue(name)
            let first = try #require(try await bucket.create("slot.a", Array("one".utf8)))
            let read = try await bucket.get("slot.a")
            #expect(read?.value == Array("one".utf8) && read?.revision == first)
            try await bucket.delete("slot.a")
            #expect(try await bucket.create("slot.a", Array("again".utf8)) != nil, "a deleted key cannot be created again")
        }
    }
}
