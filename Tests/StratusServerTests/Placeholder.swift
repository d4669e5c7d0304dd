import Testing

@Suite struct StratusServerTestsPlaceholder {
    @Test func builds() {}
}
