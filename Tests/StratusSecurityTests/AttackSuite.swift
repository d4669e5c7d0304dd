import Testing

/// The attack suite: every attack of the threat model (Documentation/0012-threat-model.md),
/// run against a live server on loopback (or a real synced folder), each proving that the
/// attack fails.
///
/// Each finding has a suite of its own in an extension, in a file named after it
/// (`Attack01DocumentPathTests.swift` for finding 1), so `swift test --filter AttackSuite`
/// runs them all and `--filter AttackSuite.DocumentPathAttacks` one.
@Suite("Attack suite")
struct AttackSuite {}
