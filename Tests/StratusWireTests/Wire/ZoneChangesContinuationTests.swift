import Foundation
import Testing

@testable import StratusWire

/// `ZoneChanges.Response.continuation(in:)` reads a page's token, `moreComing` and record count
/// without decoding the records, agrees with the decoder, and gives up on anything unusual.
@Suite struct ZoneChangesContinuationTests {
    static let zone = ZoneID(zoneName: "Feed")

    static func page(records: Int, token: String, moreComing: Bool) -> ZoneChanges.Response {
        let results = (0..<records).map { index in
            RecordResult.record(
                Record(
                    recordName: "r\(index)", recordType: "Note", recordChangeTag: ChangeTag(rawValue: "t\(index)"),
                    fields: [
                        "title": .string("a \"quoted\" } ] title \\ \(index)"), "rank": .int64(Int64(index)),
                        "tags": .stringList(["x", "y"]), "folder": .reference(Reference(recordName: "f", zoneID: zone)),
                    ], zoneID: zone))
        }
        return ZoneChanges.Response(zones: [
            .changes(ZoneChanges.ZoneRecords(zoneID: zone, records: results, syncToken: SyncToken(rawValue: token), moreComing: moreComing))
        ])
    }

    @Test(arguments: [(0, true), (1, false), (200, true)])
    func anEncodedPageIsSkimmedAsItDecodes(records: Int, moreComing: Bool) throws {
        let body = try WireCoding.encode(Self.page(records: records, token: "tok/en+\(records)", moreComing: moreComing))
        let continuation = try #require(ZoneChanges.Response.continuation(in: body))
        guard case .changes(let decoded) = try WireCoding.decode(ZoneChanges.Response.self, from: body).zones.first else {
            Issue.record("not a page")
            return
        }
        #expect(continuation.syncToken == decoded.syncToken)
        #expect(continuation.moreComing == decoded.moreComing)
        #expect(continuation.recordCount == decoded.records.count)
    }

    @Test func whitespaceEscapesInTheTokenAndKeysInAnyOrderAreRead() throws {
        let body = #" { "zones" : [ { "syncToken" : "a\/b\u0041" , "records" : [ {"x":[1,2,{"y":null}]} , "s" , 3.5e2 ] , "moreComing" : false } ] } "#
        let continuation = try #require(ZoneChanges.Response.continuation(in: Data(body.utf8)))
        #expect(continuation == .init(syncToken: SyncToken(rawValue: "a/bA"), moreComing: false, recordCount: 3))
    }

    @Test(arguments: [
        #"{"zones":[{"serverErrorCode":"ZONE_NOT_FOUND","zoneID":{"zoneName":"Feed"}}]}"#,
        #"{"zones":[{"moreComing":true,"records":[],"syncToken":"a"},{"moreComing":true,"records":[],"syncToken":"b"}]}"#,
        #"{"zones":[]}"#,
        #"{"zones":[{"moreComing":true,"records":[],"sync\u0054oken":"a"}]}"#,
        #"{"zones":[{"moreComing":true,"records":[]}]}"#,
        #"{"zones":[{"moreComing":"yes","records":[],"syncToken":"a"}]}"#,
        #"{"zones":[{"moreComing":true,"records":[{"a":"b}],"syncToken":"a"}]}"#,
        #"{"zones":[{"moreComing":true,"records":[],"syncToken":"a"}]} trailing"#,
        #"{"zones":[{"moreComing":true,"records":[],"syncToken":"a""#,
        "",
    ])
    func anythingButOnePlainPageIsLeftToTheDecoder(body: String) {
        #expect(ZoneChanges.Response.continuation(in: Data(body.utf8)) == nil)
    }
}
