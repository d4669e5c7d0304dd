import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// The pages of a part are asked for while the page before is decoded (Documentation/0004, decision 21):
/// a page that cannot be decoded fails its part, and the token stays at the end of the last part the
/// store committed, so the next sync fetches exactly the rest.
@Suite struct ReadAheadFetchTests {
    /// Two pages per part: 606 records are a part of 400 and one of 206.
    static func twoPagesPerPart(_ configuration: inout SyncConfiguration) { configuration.fetchBatchSize = 400 }

    @Test func aPageThatCannotBeDecodedStopsTheSyncAtTheLastCommittedPart() async throws {
        try await SyncWorld.run { world in
            try await PipelinedFetchTests.seed(world)
            let store = MemoryStore()
            let damaging = DamagingFeed(answer: 3)
            let b = try world.device("b", store: store, network: damaging, configure: Self.twoPagesPerPart)
            let error = await #expect(throws: StratusError.self) { try await b.sync.sync() }
            #expect(error?.code == .serverResponseLost)
            #expect(damaging.requests >= 3)
            #expect(store.deliveries.count == 1)
            let before = PipelinedFetchTests.inserted(store)
            #expect(before.count == 400)
            let relaunched = try await PipelinedFetchTests.relaunch(b, in: world, after: before, configure: Self.twoPagesPerPart)
            let status = await relaunched.sync.status
            #expect(status.isCaughtUp)
            try await relaunched.sync.close()
        }
    }
}

/// Damages the last record of the `n`th `changes/zone` answer (its record type becomes a number), so
/// the page cannot be decoded though where it ends can still be read.
final class DamagingFeed: HTTPTransport {
    private let answer: Int
    private let count = Mutex(0)

    init(answer: Int) {
        self.answer = answer
    }

    /// How many `changes/zone` requests went out.
    var requests: Int { count.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url.path.hasSuffix("/changes/zone") else { return try await SyncWorld.sharedTransport.send(request) }
        let number = count.withLock {
            $0 += 1
            return $0
        }
        var response = try await SyncWorld.sharedTransport.send(request)
        var text = String(decoding: response.body, as: UTF8.self)
        if number == answer, let range = text.range(of: #""recordType":""#, options: .backwards) {
            text.replaceSubrange(range, with: #""recordType":17,"x":""#)
            response.body = Data(text.utf8)
        }
        return response
    }
}
