import Synchronization

/// A number that only goes up, such as requests served.
public final class Counter: PrometheusSample {
    private let value = Atomic<Int64>(0)

    init() {}

    /// Adds `amount` (1 by default).
    public func increment(by amount: Int64 = 1) {
        precondition(amount >= 0, "a counter only goes up; got \(amount)")
        value.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The current count.
    public var count: Int64 { value.load(ordering: .relaxed) }

    func render(name: String, labels: Labels, into out: inout String) {
        out += "\(name)\(labels.braced) \(count)\n"
    }
}

/// A number that goes up and down, such as connections in flight.
public final class Gauge: PrometheusSample {
    private let value = Atomic<Int64>(0)

    init() {}

    /// Sets the value.
    public func set(_ newValue: Int64) { value.store(newValue, ordering: .relaxed) }

    /// Adds `amount`, which may be negative.
    public func add(_ amount: Int64) { value.wrappingAdd(amount, ordering: .relaxed) }

    /// The current value.
    public var current: Int64 { value.load(ordering: .relaxed) }

    func render(name: String, labels: Labels, into out: inout String) {
        out += "\(name)\(labels.braced) \(current)\n"
    }
}
