public import StratusHTTP
public import StratusMetrics

/// Counts responses by status class and records their latency.
///
/// Exposes `stratus_http_responses_total{class="2xx"}` and the histogram
/// `stratus_http_request_duration_seconds`.
public struct MetricsMiddleware: HTTPMiddleware {
    private let counters: [Counter]
    private let latency: Timer

    /// Creates the middleware, registering its metrics in `registry`.
    public init(registry: MetricsRegistry) {
        counters = (1...5).map {
            registry.counter("stratus_http_responses_total", help: "Responses sent, by status class.", labels: ["class": "\($0)xx"])
        }
        latency = registry.timer("stratus_http_request_duration_seconds", help: "Time from request head to response.")
    }

    /// Counts the response and records the time since the request arrived.
    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        let index = min(max(response.status.code / 100, 1), 5) - 1
        counters[index].increment()
        latency.record(ContinuousClock.now - request.receivedAt)
    }
}
