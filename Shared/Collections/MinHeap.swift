/// A binary min-heap: the smallest element first, pushed and popped in O(log n). The gateway's
/// expiring tables and the NATS request timeouts keep their order in it. Inlinable, so each use
/// is specialised for its element type (one of them is on every request's path).
public struct MinHeap<Element: Comparable> {
    @usableFromInline var elements: [Element] = []

    /// An empty heap.
    @inlinable public init() {}

    /// A heap of `elements`, built in O(n).
    @inlinable public init(_ elements: [Element]) {
        self.elements = elements
        for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) {
            siftDown(from: index)
        }
    }

    /// The number of elements.
    @inlinable public var count: Int { elements.count }

    /// The smallest element, if any.
    @inlinable public var min: Element? { elements.first }

    /// Adds `element`.
    @inlinable public mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the smallest element, if any.
    @inlinable public mutating func popMin() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let smallest = elements.removeLast()
        siftDown(from: 0)
        return smallest
    }

    @usableFromInline mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < elements.count, elements[left] < elements[smallest] { smallest = left }
            if right < elements.count, elements[right] < elements[smallest] { smallest = right }
            if smallest == parent { return }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
