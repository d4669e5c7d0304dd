import StratusCrypto
import StratusServerCrypto
import StratusLogging
@testable import StratusServer
import Testing

/// The memory of accepted server-to-server signatures: once each, until their date expires, bounded.
@Suite struct SignatureReplayGuardTests {
    static func identity(_ value: UInt64) -> ServerToServerSignature.Identity {
        ServerToServerSignature.Identity(high: value, low: ~value)
    }

    @Test func aSignatureIsAdmittedOnceUntilItExpires() {
        let replays = SignatureReplayGuard(capacity: 100, logger: .disabled)
        let now: Int64 = 1_750_000_000_000
        #expect(replays.admit(Self.identity(1), expiresAt: now + 600_000, now: now))
        #expect(!replays.admit(Self.identity(1), expiresAt: now + 600_000, now: now + 1_000))
        #expect(!replays.admit(Self.identity(1), expiresAt: now + 600_000, now: now + 599_000))
        #expect(replays.admit(Self.identity(2), expiresAt: now + 600_000, now: now + 1_000))
        // Once its minute is over, an expired signature is forgotten (the date check refuses it by then).
        #expect(replays.admit(Self.identity(3), expiresAt: now + 900_000, now: now + 720_001))
        #expect(replays.count == 1)
    }

    @Test func pastItsCapacityTheSoonestToExpireAreForgottenFirst() {
        let replays = SignatureReplayGuard(capacity: 3, logger: .disabled)
        let now: Int64 = 1_750_000_000_000
        #expect(replays.admit(Self.identity(1), expiresAt: now + 60_000, now: now))
        for value in 2...4 as ClosedRange<UInt64> {
            #expect(replays.admit(Self.identity(value), expiresAt: now + 600_000, now: now))
        }
        #expect(replays.count == 3)
        #expect(replays.admit(Self.identity(1), expiresAt: now + 60_000, now: now), "the oldest was dropped to make room")
        #expect(!replays.admit(Self.identity(4), expiresAt: now + 600_000, now: now))
    }

    @Test func capacityZeroRemembersNothing() {
        let replays = SignatureReplayGuard(capacity: 0, logger: .disabled)
        #expect(replays.admit(Self.identity(1), expiresAt: 10, now: 0))
        #expect(replays.admit(Self.identity(1), expiresAt: 10, now: 0))
    }
}
