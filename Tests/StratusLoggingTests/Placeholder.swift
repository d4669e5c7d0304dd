import Testing

@Suite struct StratusLoggingTestsPlaceholder {
    @Test func builds() {}
}
