import Testing

@Suite struct StratusHTTPServerTestsPlaceholder {
    @Test func builds() {}
}
