import Testing

@Suite struct StratusWireTestsPlaceholder {
    @Test func builds() {}
}
