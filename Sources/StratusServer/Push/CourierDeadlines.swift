/// The deadlines of parked courier polls, earliest first, so that one timer serves them all.
///
/// A binary min-heap of (deadline, waiter). A poll that ends some other way (signalled,
/// cancelled, superseded) leaves its entry behind: popping it later finishes nothing, since
/// waiter IDs are never reused. ``compact(keeping:)`` drops such entries when they pile up.
/// Pure state, no clock: ``CourierWaiters`` owns the timer (issue 20: a sleeping task per
/// parked poll cost memory per connection).
struct CourierDeadlines {
    private struct Entry {
        var deadline: ContinuousClock.Instant
        var id: CourierWaiterID
    }

    private var heap: [Entry] = []

    /// Entries held, stale ones included.
    var count: Int { heap.count }

    /// The earliest deadline held, if any.
    var earliest: ContinuousClock.Instant? { heap.first?.deadline }

    /// Adds `id`, due at `deadline`.
    mutating func insert(_ id: CourierWaiterID, at deadline: ContinuousClock.Instant) {
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
    }

    /// Removes and returns the waiters due at or before `now`, earliest first.
    mutating func popExpired(at now: ContinuousClock.Instant) -> [CourierWaiterID] {
        var expired: [CourierWaiterID] = []
        while let first = heap.first, first.deadline <= now {
            expired.append(first.id)
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
        }
        return expired
    }

    /// Keeps only the entries whose waiter `isLive` says still waits.
    mutating func compact(keeping isLive: (CourierWaiterID) -> Bool) {
        heap.removeAll { !isLive($0.id) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// Forgets every entry.
    mutating func removeAll() {
        heap.removeAll()
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var smallest = parent
            let left = 2 * parent + 1
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if left + 1 < heap.count && heap[left + 1].deadline < heap[smallest].deadline { smallest = left + 1 }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
