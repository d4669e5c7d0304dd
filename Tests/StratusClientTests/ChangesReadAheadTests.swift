import Foundation
import StratusClient
import StratusWire
import Synchronization
import Testing

/// `allRecordZoneChanges` asks for page n + 1 while it decodes page n (Documentation/0004, decision 21):
/// every record still arrives once and in feed order, no page is asked for past the end of a part or
/// of the feed, a page that cannot be decoded fails the fetch, and cancelling it cancels the request
/// sent ahead.
@Suite struct ChangesReadAheadTests {
    /// `count` records named `r00000`… written in name order, 200 to a request: the feed lists them so.
    static func seed(_ database: Database, zone name: String, count: Int) async throws -> ZoneID {
        let zone = try await database.save(RecordZone(zoneName: name)).zoneID
        let records = (0..<count).map { index in
            var record = Record(recordType: "Item", recordID: RecordID(recordName: Self.name(index), zoneID: zone))
            record["n"] = index
            return record
        }
        for start in stride(from: 0, to: count, by: 200) {
            _ = try await database.modifyRecords(saving: Array(records[start..<min(start + 200, count)]), deleting: [])
        }
        return zone
    }

    static func name(_ index: Int) -> String {
        "r" + String(repeating: "0", count: 5 - String(index).count) + String(index)
    }

    static func names(_ changes: Database.RecordZoneChanges) throws -> [String] {
        try changes.modifications().map(\.recordID.recordName).sorted()
    }

    /// 1,001 records are six pages: read whole, then in parts of at least 300 (two pages each), every
    /// record arrives once, each part holds the records that follow the part before it, and no part
    /// asks for a page past its end (six requests either way, none sent ahead and thrown away).
    @Test func aLongFeedArrivesOnceInOrderWithNoPageAskedForPastAnEnd() async throws {
        let tap = FeedTap()
        try await LiveFixture.run(transport: tap) { fixture in
            let zone = try await Self.seed(fixture.database, zone: "Long", count: 1_001)
            tap.reset()
            let whole = try await fixture.database.allRecordZoneChanges(inZoneWith: zone, since: nil)
            #expect(try Self.names(whole) == (0..<1_001).map(Self.name))
            #expect(try whole.modifications().allSatisfy { $0["n"] == FieldValue.int64(Int64($0.recordID.recordName.dropFirst()) ?? -1) })
            #expect(!whole.moreComing)
            #expect(tap.requests.count == 6)

            tap.reset()
            var parts: [[String]] = []
            var token: SyncToken?
            var more = true
            while more {
                let part = try await fixture.database.allRecordZoneChanges(inZoneWith: zone, since: token, limit: 300)
                parts.append(try Self.names(part))
                token = part.changeToken
                more = part.moreComing
            }
            #expect(parts.map(\.count) == [400, 400, 201])
            #expect(parts.flatMap { $0 } == (0..<1_001).map(Self.name))
            #expect(tap.requests.count == 6)
            #expect(try await fixture.database.allRecordZoneChanges(inZoneWith: zone, since: token).modificationResultsByID.isEmpty)
        }
    }

    /// The second page's body is damaged in its last record (it cannot be decoded, but where it ends
    /// can be read): every fetch fails with nothing returned, no page after the third is asked for,
    /// and the third page is asked for — from the second page's token — while the second is decoded.
    /// (The request sent ahead is cancelled when the decoding fails, so on a busy machine it may be
    /// cancelled before it reaches the transport: the fetch is tried up to ten times, and reading one
    /// page at a time would never send a third request.)
    @Test func theNextPageIsAskedForWhileThisOneIsDecodedAndADamagedPageFailsTheFetch() async throws {
        let tap = FeedTap(damaging: 2)
        try await LiveFixture.run(transport: tap) { fixture in
            let zone = try await Self.seed(fixture.database, zone: "Damaged", count: 700)
            var askedAhead = false
            for _ in 0..<10 where !askedAhead {
                tap.reset()
                let error = try await #require(throws: StratusError.self) {
                    try await fixture.database.allRecordZoneChanges(inZoneWith: zone, since: nil)
                }
                #expect(error.code == .serverResponseLost)
                let requests = tap.requests
                #expect((2...3).contains(requests.count))
                guard requests.count == 3 else { continue }
                let secondPage = try #require(tap.answers.dropFirst().first.flatMap { ZoneChanges.Response.continuation(in: $0) })
                #expect(requests[2].zones.first?.syncToken == secondPage.syncToken)
                askedAhead = true
            }
            #expect(askedAhead)
        }
    }

    /// Cancelled while the page asked for ahead is at the server: that request is cancelled too, and the
    /// fetch throws `CancellationError`.
    @Test func cancellingTheFetchCancelsThePageAskedForAhead() async throws {
        let tap = FeedTap(holding: 3)
        try await LiveFixture.run(transport: tap) { fixture in
            let zone = try await Self.seed(fixture.database, zone: "Cancelled", count: 700)
            tap.reset()
            let fetch = Task { try await fixture.database.allRecordZoneChanges(inZoneWith: zone, since: nil) }
            while tap.requests.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
            fetch.cancel()
            await #expect(throws: CancellationError.self) { try await fetch.value }
            while !tap.heldRequestCancelled { try await Task.sleep(for: .milliseconds(5)) }
            #expect(tap.requests.count == 3)
        }
    }

    /// A body the skim cannot read (an escaped key) is decoded before the next page is asked for: the
    /// same records in the same requests.
    @Test func aBodyThatCannotBeSkimmedIsReadPageByPage() async throws {
        let tap = FeedTap(escapingTokenKeys: true)
        try await LiveFixture.run(transport: tap) { fixture in
            let zone = try await Self.seed(fixture.database, zone: "Escaped", count: 450)
            tap.reset()
            let whole = try await fixture.database.allRecordZoneChanges(inZoneWith: zone, since: nil)
            #expect(try Self.names(whole) == (0..<450).map(Self.name))
            #expect(tap.requests.count == 3)
            #expect(tap.answers.allSatisfy { ZoneChanges.Response.continuation(in: $0) == nil })
        }
    }
}

/// The real transport, watching `changes/zone`: it keeps each request and answer, and can damage one
/// answer, hold one request until it is cancelled, or spell every answer's `syncToken` key with an escape.
final class FeedTap: HTTPTransport {
    private struct State {
        var requests: [ZoneChanges.Request] = []
        var answers: [Data] = []
        var heldRequestCancelled = false
    }

    private let base = URLSessionTransport()
    private let state = Mutex(State())
    private let damaging: Int?
    private let holding: Int?
    private let escapingTokenKeys: Bool

    init(damaging: Int? = nil, holding: Int? = nil, escapingTokenKeys: Bool = false) {
        self.damaging = damaging
        self.holding = holding
        self.escapingTokenKeys = escapingTokenKeys
    }

    var requests: [ZoneChanges.Request] { state.withLock { $0.requests } }
    var answers: [Data] { state.withLock { $0.answers } }
    var heldRequestCancelled: Bool { state.withLock { $0.heldRequestCancelled } }

    func reset() {
        state.withLock { $0 = State() }
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url.path.hasSuffix("/changes/zone") else { return try await base.send(request) }
        let decoded = try WireCoding.decode(ZoneChanges.Request.self, from: request.body)
        let number = state.withLock {
            $0.requests.append(decoded)
            return $0.requests.count
        }
        if number == holding {
            do {
                try await Task.sleep(for: .seconds(3_600))
            } catch {
                state.withLock { $0.heldRequestCancelled = true }
                throw error
            }
        }
        var response = try await base.send(request)
        var text = String(decoding: response.body, as: UTF8.self)
        if number == damaging, let range = text.range(of: #""recordType":"Item""#, options: .backwards) {
            text.replaceSubrange(range, with: #""recordType":17"#)
        }
        if escapingTokenKeys {
            text = text.replacingOccurrences(of: #""syncToken":"#, with: #""sync\u0054oken":"#)
        }
        response.body = Data(text.utf8)
        let body = response.body
        state.withLock { $0.answers.append(body) }
        return response
    }
}
