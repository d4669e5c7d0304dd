import Synchronization

/// Owns every metric of a process and renders them as Prometheus text.
///
/// Metrics are created once, by name and labels, and updated lock-free:
///
/// ```swift
/// let metrics = MetricsRegistry()
/// let requests = metrics.counter("stratus_http_requests_total", help: "Requests served.", labels: ["status": "2xx"])
/// requests.increment()
/// print(metrics.prometheusText())
/// ```
public final class MetricsRegistry: Sendable {
    private struct Family: Sendable {
        var help: String
        var type: String
        var members: [Labels: any PrometheusSample]
    }

    private let families = Mutex<[String: Family]>([:])

    /// Creates an empty registry.
    public init() {}

    /// Returns the counter with `name` and `labels`, creating it on first use.
    ///
    /// - Parameters:
    ///   - name: A Prometheus metric name, such as `stratus_http_requests_total`.
    ///   - help: One line that says what is counted.
    ///   - labels: Label names and values that tell this series apart.
    public func counter(_ name: String, help: String, labels: [String: String] = [:]) -> Counter {
        metric(name, help: help, type: "counter", labels: labels) { Counter() }
    }

    /// Returns the gauge with `name` and `labels`, creating it on first use.
    public func gauge(_ name: String, help: String, labels: [String: String] = [:]) -> Gauge {
        metric(name, help: help, type: "gauge", labels: labels) { Gauge() }
    }

    /// Returns the timer (a histogram of seconds) with `name` and `labels`, creating it on first use.
    ///
    /// - Parameter buckets: Upper bounds in seconds; `Timer.defaultBuckets` when omitted.
    public func timer(
        _ name: String, help: String, labels: [String: String] = [:], buckets: [Double] = Timer.defaultBuckets
    ) -> Timer {
        metric(name, help: help, type: "histogram", labels: labels) { Timer(buckets: buckets) }
    }

    private func metric<M: PrometheusSample>(
        _ name: String, help: String, type: String, labels: [String: String], make: () -> M
    ) -> M {
        let key = Labels(labels)
        return families.withLock { families in
            var family = families[name] ?? Family(help: help, type: type, members: [:])
            precondition(family.type == type, "metric \(name) registered as \(family.type), requested as \(type)")
            if let existing = family.members[key] as? M {
                return existing
            }
            let created = make()
            family.members[key] = created
            families[name] = family
            return created
        }
    }

    /// Renders every metric in the Prometheus text exposition format (version 0.0.4).
    public func prometheusText() -> String {
        let snapshot = families.withLock { $0 }
        var out = ""
        for name in snapshot.keys.sorted() {
            guard let family = snapshot[name] else { continue }
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for labels in family.members.keys.sorted(by: { $0.rendered < $1.rendered }) {
                family.members[labels]?.render(name: name, labels: labels, into: &out)
            }
        }
        return out
    }
}

/// A set of label pairs, rendered in name order.
struct Labels: Hashable, Sendable {
    let rendered: String

    init(_ labels: [String: String]) {
        rendered = labels.sorted { $0.key < $1.key }.map { "\($0.0)=\"\(Labels.escape($0.1))\"" }.joined(separator: ",")
    }

    /// Renders the labels plus one extra pair (for histogram `le`).
    func rendered(adding name: String, _ value: String) -> String {
        let extra = "\(name)=\"\(value)\""
        return "{" + (rendered.isEmpty ? extra : rendered + "," + extra) + "}"
    }

    var braced: String { rendered.isEmpty ? "" : "{\(rendered)}" }

    static func == (lhs: Labels, rhs: Labels) -> Bool { lhs.rendered == rhs.rendered }
    func hash(into hasher: inout Hasher) { hasher.combine(rendered) }

    private static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// A metric that can write its samples in Prometheus text.
protocol PrometheusSample: AnyObject, Sendable {
    func render(name: String, labels: Labels, into out: inout String)
}

/// Formats a sample value the way Prometheus expects.
func prometheusNumber(_ value: Double) -> String {
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
