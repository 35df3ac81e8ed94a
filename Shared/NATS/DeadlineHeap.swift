/// A binary min-heap of (deadline, token) pairs: the request timeouts, earliest first.
///
/// Entries of requests that already finished stay until their deadline passes (lazy deletion), which keeps
/// the hot path to one push per request.
struct DeadlineHeap {
    private var entries: [(deadline: UInt64, token: UInt64)] = []

    /// True when no deadline is stored.
    var isEmpty: Bool { entries.isEmpty }

    /// The earliest deadline, if any.
    var earliest: UInt64? { entries.first?.deadline }

    /// Adds a deadline.
    mutating func push(deadline: UInt64, token: UInt64) {
        entries.append((deadline, token))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if its deadline is at or before `now`.
    mutating func popExpired(now: UInt64) -> UInt64? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
                if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
                if smallest == parent { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first.token
    }
}
