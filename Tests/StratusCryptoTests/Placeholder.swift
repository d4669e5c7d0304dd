import Testing

@Suite struct StratusCryptoTestsPlaceholder {
    @Test func builds() {}
}
