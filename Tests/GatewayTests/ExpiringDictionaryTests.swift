import Collections
import Testing
@testable import Gateway

@Suite("A dictionary kept in expiry order, with a cap")
struct ExpiringDictionaryTests {
    @Test("a change drops the entries that expired, and only those")
    func expiredLeave() {
        var entries = ExpiringDictionary<String, Int, Int>(capacity: 100)
        for index in 0..<10 {
            entries.update(index, for: "k\(index)", expiry: index + 1, now: 0)
        }
        #expect(entries.count == 10)
        entries.update(99, for: "late", expiry: 50, now: 4)
        #expect(entries.count == 7)
        #expect(entries["k3"] == nil)
        #expect(entries["k4"]?.value == 4)
        #expect(entries["late"]?.expiry == 50)
    }

    @Test("at capacity the entry that expires first makes room, and only it")
    func capacity() {
        var entries = ExpiringDictionary<String, Int, Int>(capacity: 3)
        entries.update(1, for: "b", expiry: 20, now: 0)
        entries.update(2, for: "a", expiry: 10, now: 0)
        entries.update(3, for: "c", expiry: 30, now: 0)
        #expect(entries.update(4, for: "d", expiry: 40, now: 0) == 1)
        #expect(entries.count == 3)
        #expect(entries["a"] == nil)
        #expect(entries["b"] != nil && entries["c"] != nil && entries["d"] != nil)
        // Replacing an entry needs no room.
        #expect(entries.update(5, for: "b", expiry: 50, now: 0) == 0)
        #expect(entries.count == 3)
    }

    @Test("a moved expiry counts only where it is now: the old one neither drops nor evicts the entry")
    func movedExpiry() {
        var entries = ExpiringDictionary<String, Int, Int>(capacity: 2)
        entries.update(1, for: "a", expiry: 5, now: 0)
        entries.update(1, for: "a", expiry: 100, now: 0)
        entries.update(2, for: "b", expiry: 50, now: 0)
        entries.removeExpired(now: 10)
        #expect(entries["a"]?.expiry == 100)
        // Full: b (50) expires before a (100), whatever a's stale entry at 5 says.
        entries.update(3, for: "c", expiry: 60, now: 10)
        #expect(entries["b"] == nil)
        #expect(entries["a"] != nil && entries["c"] != nil)
    }

    @Test("one key updated a million times stays one entry")
    func manyUpdates() {
        var entries = ExpiringDictionary<String, Int, Int>(capacity: 10)
        for index in 0..<1_000_000 {
            entries.update(index, for: "hot", expiry: 1_000_000 + index, now: index)
        }
        #expect(entries.count == 1)
        #expect(entries["hot"]?.value == 999_999)
    }
}
