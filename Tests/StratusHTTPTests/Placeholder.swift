import Testing

@Suite struct StratusHTTPTestsPlaceholder {
    @Test func builds() {}
}
