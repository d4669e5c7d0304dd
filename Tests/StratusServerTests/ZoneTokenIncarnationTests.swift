import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// A zone sync token works only for the zone incarnation that issued it, and only up to where that
/// zone's change log has reached (issue 23, defect 7).
@Suite struct ZoneTokenIncarnationTests {
    static let backends = RecordStoreBackend.allCases

    /// A database restored from an earlier state (here: a fresh one under the same token secret, whose
    /// zone has the same row and creation time) has not reached the token's sequence: the token is
    /// refused as expired instead of answering "nothing new" and handing the same token back, which
    /// made a device miss every change written after the restore.
    @Test(arguments: backends) func aTokenFromTheFutureIsRefusedAsExpired(_ backend: RecordStoreBackend) async throws {
        var future: SyncToken?
        try await withServer(backend) { before in
            try await before.createZones(["Z"])
            for index in 0..<12 { try await before.create("old\(index)", fields: ["v": .int64(Int64(index))], zone: "Z") }
            future = try await before.allChanges(zone: "Z").token
        }
        let token = try #require(future)
        try await withServer(backend) { restored in
            try await restored.createZones(["Z"])
            for index in 0..<3 { try await restored.create("new\(index)", fields: ["v": .int64(Int64(index))], zone: "Z") }
            let (status, json) = try await restored.postJSON(
                "records/changes", #"{"zoneID":{"zoneName":"Z"},"syncToken":"\#(token.rawValue)"}"#)
            #expect(status == 400, "\(json)")
            #expect(json.string("serverErrorCode") == "BAD_REQUEST")
            #expect(json.string("reason")?.contains("expired") == true, "\(json)")
            #expect(json.string("reason")?.contains("without a token") == true, "\(json)")
            // Refetching without a token returns what the zone holds.
            let all = try await restored.allChanges(zone: "Z")
            #expect(all.records.compactMap(\.recordName).sorted() == ["new0", "new1", "new2"])
        }
    }

    /// A zone made again in a recreated database has the same row number as the old one, but not its
    /// creation time: an old token whose sequence it has passed is refused instead of skipping the
    /// changes before that sequence.
    @Test(arguments: backends) func aRecreatedZoneNeverMatchesAnOldToken(_ backend: RecordStoreBackend) async throws {
        var old: SyncToken?
        try await withServer(backend) { first in
            try await first.createZones(["Z"])
            for index in 0..<2 { try await first.create("a\(index)", fields: [:], zone: "Z") }
            old = try await first.allChanges(zone: "Z").token
        }
        let token = try #require(old)
        try await withServer(backend) { second in
            second.advanceClock(by: .seconds(3600))
            try await second.createZones(["Z"])
            for index in 0..<5 { try await second.create("b\(index)", fields: [:], zone: "Z") }
            let (status, json) = try await second.postJSON(
                "records/changes", #"{"zoneID":{"zoneName":"Z"},"syncToken":"\#(token.rawValue)"}"#)
            #expect(status == 400, "\(json)")
            #expect(json.string("reason")?.contains("without a token") == true, "\(json)")
        }
    }

    /// The zone's own tokens keep working: the latest one, an earlier one, and the one `zones/list` hands out.
    @Test(arguments: backends) func theZonesOwnTokensStillWork(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Z"])
            try await server.create("r0", fields: [:], zone: "Z")
            let early = try await server.allChanges(zone: "Z").token
            try await server.create("r1", fields: [:], zone: "Z")
            let late = try await server.allChanges(zone: "Z").token
            #expect(try await server.allChanges(zone: "Z", from: early).records.compactMap(\.recordName) == ["r1"])
            #expect(try await server.allChanges(zone: "Z", from: late).records.isEmpty)
            let zones = try await server.send("zones/list", EmptyBody(), as: ZonesList.Response.self)
            let listed = try #require(
                zones.zones.compactMap { result -> Zone? in if case .zone(let zone) = result { zone } else { nil } }
                    .first { $0.zoneID.zoneName == "Z" }?.syncToken)
            #expect(try await server.allChanges(zone: "Z", from: listed).records.isEmpty)
        }
    }
}
