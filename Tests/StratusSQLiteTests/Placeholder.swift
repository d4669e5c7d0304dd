import Testing

@Suite struct StratusSQLiteTestsPlaceholder {
    @Test func builds() {}
}
