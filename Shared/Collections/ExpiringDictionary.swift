/// A dictionary whose entries each carry an expiry, kept in expiry order as well, with a hard cap.
///
/// Every change drops the entries that have expired, from the front of the order, and, when the
/// dictionary is full of live entries, the one that expires first; no change ever copies the whole.
/// Lookups are the dictionary's. Replaced expiries stay in the order until they come to the front
/// (lazy deletion), and the order is rebuilt once they outnumber the live entries.
///
/// Inlinable, so that each user's keys and values are specialized in its own module: a generic call
/// across the module boundary costs several times the lookup itself.
public struct ExpiringDictionary<Key: Hashable, Value, Expiry: Comparable> {
    @usableFromInline var entries: [Key: (value: Value, expiry: Expiry)] = [:]
    @usableFromInline var order = MinHeap<Deadline>()
    /// The most entries kept.
    public let capacity: Int

    @usableFromInline struct Deadline: Comparable {
        @usableFromInline let expiry: Expiry
        @usableFromInline let key: Key

        @inlinable init(expiry: Expiry, key: Key) {
            self.expiry = expiry
            self.key = key
        }

        @inlinable static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.expiry < rhs.expiry }
        @inlinable static func == (lhs: Deadline, rhs: Deadline) -> Bool { lhs.expiry == rhs.expiry && lhs.key == rhs.key }
    }

    /// An empty dictionary that keeps at most `capacity` entries (at least one).
    @inlinable public init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// The number of entries, expired ones not yet dropped included.
    @inlinable public var count: Int { entries.count }

    /// The value stored for `key` and its expiry, whether or not that has passed.
    @inlinable public subscript(key: Key) -> (value: Value, expiry: Expiry)? {
        entries[key]
    }

    /// Stores `value` for `key` until `expiry`, replacing what was there, after dropping what expired by
    /// `now`. Returns how many entries that had not expired were dropped to stay within `capacity`.
    @discardableResult
    @inlinable public mutating func update(_ value: Value, for key: Key, expiry: Expiry, now: Expiry) -> Int {
        update(value, for: key, expiry: expiry, now: now) { _ in }
    }

    /// As ``update(_:for:expiry:now:)``, handing each entry dropped before its expiry to `evicted`
    /// (the one whose expiry comes first goes first).
    @discardableResult
    @inlinable public mutating func update(_ value: Value, for key: Key, expiry: Expiry, now: Expiry,
                                           evicted onEvict: (Value) -> Void) -> Int {
        removeExpired(now: now)
        var evicted = 0
        if entries[key] == nil {
            while entries.count >= capacity, let first = order.popMin() {
                if let entry = entries[first.key], entry.expiry == first.expiry {
                    entries[first.key] = nil
                    evicted += 1
                    onEvict(entry.value)
                }
            }
        }
        entries[key] = (value, expiry)
        order.push(Deadline(expiry: expiry, key: key))
        if order.count > 2 * entries.count + 64 {
            order = MinHeap(entries.map { Deadline(expiry: $0.value.expiry, key: $0.key) })
        }
        return evicted
    }

    /// Drops every entry whose expiry is at or before `now`.
    @inlinable public mutating func removeExpired(now: Expiry) {
        while let first = order.min, first.expiry <= now {
            _ = order.popMin()
            if entries[first.key]?.expiry == first.expiry {
                entries[first.key] = nil
            }
        }
    }
}
