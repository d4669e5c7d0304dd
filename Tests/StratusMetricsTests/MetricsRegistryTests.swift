import StratusMetrics
import Testing

@Suite struct MetricsRegistryTests {
    /// Asking twice for the same name and labels returns the same counter.
    @Test func sameNameAndLabelsShareOneCounter() {
        let registry = MetricsRegistry()
        registry.counter("c_total", help: "h", labels: ["a": "1"]).increment()
        registry.counter("c_total", help: "h", labels: ["a": "1"]).increment(by: 2)
        #expect(registry.counter("c_total", help: "h", labels: ["a": "1"]).count == 3)
        #expect(registry.counter("c_total", help: "h", labels: ["a": "2"]).count == 0)
    }

    /// Counters, gauges and histograms render in Prometheus text format.
    @Test func rendersPrometheusText() {
        let registry = MetricsRegistry()
        registry.counter("requests_total", help: "Requests.", labels: ["class": "2xx"]).increment(by: 5)
        let gauge = registry.gauge("in_flight", help: "In flight.")
        gauge.add(3)
        gauge.add(-1)
        let timer = registry.timer("latency_seconds", help: "Latency.", buckets: [0.001, 0.01])
        timer.record(seconds: 0.0005)
        timer.record(seconds: 0.005)
        timer.record(seconds: 1)
        let text = registry.prometheusText()
        #expect(text.contains("# TYPE requests_total counter\nrequests_total{class=\"2xx\"} 5\n"))
        #expect(text.contains("in_flight 2\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"0.001\"} 1\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"0.01\"} 2\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"+Inf\"} 3\n"))
        #expect(text.contains("latency_seconds_count 3\n"))
    }

    /// Label values are escaped so the exposition stays parseable.
    @Test func labelValuesAreEscaped() {
        let registry = MetricsRegistry()
        registry.counter("x_total", help: "h", labels: ["path": "a\"b\\c\nd"]).increment()
        #expect(registry.prometheusText().contains(#"x_total{path="a\"b\\c\nd"} 1"#))
    }

    /// Concurrent increments are never lost.
    @Test func concurrentIncrementsAreNotLost() async {
        let registry = MetricsRegistry()
        let counter = registry.counter("n_total", help: "h")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<10_000 { counter.increment() } }
            }
        }
        #expect(counter.count == 80_000)
    }
}
