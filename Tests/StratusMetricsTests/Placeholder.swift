import Testing

@Suite struct StratusMetricsTestsPlaceholder {
    @Test func builds() {}
}
