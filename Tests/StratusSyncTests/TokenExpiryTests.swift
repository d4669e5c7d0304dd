import Foundation
import StratusClient
@testable import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that, once armed, answers the next `changes/zone` request carrying a sync token as a
/// server that compacted its change log does: `BAD_REQUEST`, the token has expired; and the fetch
/// from no token that follows lists no tombstones (compacted with the log).
final class TokenExpiringTransport: HTTPTransport {
    private enum Phase { case idle, armed, compacted }
    private let inner: any HTTPTransport
    private let phase = Mutex(Phase.idle)

    init(_ inner: any HTTPTransport) { self.inner = inner }

    func expireNextToken() { phase.withLock { $0 = .armed } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url.path.hasSuffix("/changes/zone") else { return try await inner.send(request) }
        let carriesToken = String(decoding: request.body, as: UTF8.self).contains("\"syncToken\"")
        let current = phase.withLock { phase -> Phase in
            defer { if phase == .armed && carriesToken { phase = .compacted } else if phase == .compacted && !carriesToken { phase = .idle } }
            return phase
        }
        if current == .armed && carriesToken { return CompactedChangeLog.expiredTokenAnswer }
        var response = try await inner.send(request)
        if current == .compacted && !carriesToken { response.body = try CompactedChangeLog.withoutTombstones(response.body) }
        return response
    }
}

/// A change token that merely expired (the server compacted its log; it lost nothing) against one
/// the Stratus server refuses because it lost data (the zone made again, the database restored).
@Suite struct TokenExpiryTests {
    /// B deletes n1 while A's token expires; A has an edit of n2 and a new n3 waiting. A's sync
    /// fetches the whole zone: n1, which A had synced and the server no longer has, was deleted —
    /// it is deleted on A, not uploaded again (a recovery did that: deleted records came back,
    /// the simulator's token-expiry fault) — while A's edit and its new note go up.
    @Test func afterAnExpiredTokenARecordTheServerNoLongerHasWasDeleted() async throws {
        try await SyncWorld.run { world in
            let network = TokenExpiringTransport(SyncWorld.sharedTransport)
            let (a, b, second) = try await SyncSimulatorFindingsTests.twoNotes(world, network: network)
            try await a.sync.sync()

            let copy = try #require(b.store.all(Note.self).first { $0.title == "n1" })
            b.store.remove(copy)
            try await b.cloud(copy).delete()

            a.transport.isOffline = true
            second["body"] = "two, edited on A"
            _ = try? await a.cloud(second).save()
            let third = make(Note.self, ["title": "n3", "body": "three", "rank": 3])
            a.store.insert(third)
            _ = try? await a.cloud(third).save()
            a.transport.isOffline = false

            network.expireNextToken()
            try await a.sync.sync()
            await a.sync.waitForIdle()
            let expected = ["n2|two, edited on A|2", "n3|three|3"]
            #expect(SyncSimulatorFindingsTests.held(a) == expected)
            #expect(try await SyncSimulatorFindingsTests.notes(onServer: a) == expected)
            #expect(await a.sync.status.pendingCount == 0)
        }
    }

    /// A refused token as the SDK reports it: the server's reason, behind `changeTokenExpired`.
    private static func refusal(_ reason: String) -> StratusError {
        var error = StratusError(.changeTokenExpired, "BAD_REQUEST")
        error.reason = reason
        return error
    }

    /// The Stratus server's refusals name the data it lost; only a refusal that does not is an expiry.
    @Test func theServersLostDataRefusalsAreNotExpiries() {
        let lost = [
            "the sync token belongs to another zone, or to an earlier zone named 'Notes' that was deleted; fetch again without a token to resync",
            "the sync token names change 9 of zone 'Notes', which has reached only 4 (the database was restored from an earlier state); "
                + "the token has expired: fetch again without a token to resync",
            "the sync token is not valid for this server; fetch again without a token to resync",
        ]
        for reason in lost {
            #expect(!SyncController.tokenMerelyExpired(Self.refusal(reason)), "\(reason)")
        }
        #expect(SyncController.tokenMerelyExpired(Self.refusal("the sync token has expired; fetch again without a token to resync")))
    }
}
