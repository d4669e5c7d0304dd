import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `zones/list`, `zones/lookup`, `zones/modify` and the scope rules of Apple's CloudKit Web Services Reference: “Database scope rules”.
@Suite struct ZonesConformanceTests {
    static let backends = RecordStoreBackend.allCases

    /// Created zones are listed next to the default zone, with a sync token and the atomic flag.
    @Test(arguments: backends) func createdZonesAreListedWithTheDefaultZone(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Inbox", "Archive"])
            let (status, data) = try await server.post("zones/list", "")
            #expect(status == 200)
            let zones = try WireCoding.decode(ZonesList.Response.self, from: data).zones.compactMap(\.zone)
            #expect(zones.map(\.zoneID.zoneName) == ["Archive", "Inbox", "_defaultZone"])
            #expect(zones.allSatisfy { $0.syncToken != nil })
            #expect(zones.first { $0.zoneID.zoneName == "Inbox" }?.atomic == true)
            #expect(zones.first { $0.zoneID.zoneName == "_defaultZone" }?.atomic == false)
        }
    }

    /// `zones/list` answers GET as documented, and POST too.
    @Test(arguments: backends) func zonesListAnswersGetAndPost(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let (data, response) = try await URLSession.shared.data(from: server.url("zones/list"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try WireCoding.decode(ZonesList.Response.self, from: data).zones.count == 1)
            #expect(try await server.post("zones/list", "{}").status == 200)
        }
    }

    /// Creating a zone that exists returns it unchanged; lookup finds zones and reports missing ones.
    @Test(arguments: backends) func lookupFindsZonesAndReportsMissingOnes(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Inbox"])
            try await server.createZones(["Inbox"])
            let body = #"{"zones":[{"zoneName":"Inbox"},{"zoneID":{"zoneName":"Nope"}},{"zoneName":"_defaultZone"}]}"#
            let (_, data) = try await server.post("zones/lookup", body)
            let results = try WireCoding.decode(ZonesLookup.Response.self, from: data).zones
            #expect(results.map { $0.zone?.zoneID.zoneName } == ["Inbox", nil, "_defaultZone"])
            #expect(results[1].error?.serverErrorCode == .zoneNotFound)
        }
    }

    /// Deleting a zone deletes its records; a zone recreated with the same name starts empty.
    @Test(arguments: backends) func deletingAZoneDeletesItsRecords(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Temp"])
            try await server.create("r1", fields: ["v": .int64(1)], zone: "Temp")
            let deleted = try await server.send(
                "zones/modify", ZonesModify.Request(operations: [.delete(ZoneID(zoneName: "Temp"))]), as: ZonesModify.Response.self)
            #expect(deleted.zones.first?.zone?.deleted == true)
            #expect(try await server.lookup(["r1"], zone: "Temp").first?.code == .zoneNotFound)
            try await server.createZones(["Temp"])
            #expect(try await server.lookup(["r1"], zone: "Temp").first?.code == .notFound)
        }
    }

    /// Deleting a missing zone, deleting the default zone, and invalid names fail per zone.
    @Test(arguments: backends) func invalidZoneOperationsFailPerZone(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let request = ZonesModify.Request(operations: [
                .delete(ZoneID(zoneName: "Ghost")), .delete(.defaultZone), .create(ZoneID(zoneName: "_private")),
                .create(ZoneID(zoneName: "Fine")),
            ])
            let results = try await server.send("zones/modify", request, as: ZonesModify.Response.self).zones
            #expect(results.map { $0.error?.serverErrorCode } == [.zoneNotFound, .badRequest, .badRequest, nil])
        }
    }

    /// The public database has only the default zone; zones cannot be created there.
    @Test(arguments: backends) func publicDatabaseHasOnlyTheDefaultZone(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let (status, json) = try await server.postJSON(
                "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"X"}}}]}"#, database: "public")
            #expect(status == 400)
            #expect(json.string("reason")?.contains("public database") == true)
            let (_, data) = try await server.post("zones/list", "", database: "public")
            #expect(try WireCoding.decode(ZonesList.Response.self, from: data).zones.compactMap(\.zone).map(\.zoneID.zoneName) == ["_defaultZone"])
            let body = #"{"zoneID":{"zoneName":"Custom"},"operations":[{"operationType":"create","record":{"recordType":"Note"}}]}"#
            let (modifyStatus, modifyJSON) = try await server.postJSON("records/modify", body, database: "public")
            #expect(modifyStatus == 404)
            #expect(modifyJSON.string("serverErrorCode") == "ZONE_NOT_FOUND")
        }
    }

    /// A private zone of another owner is not in the caller's database.
    @Test(arguments: backends) func zonesOfAnotherOwnerAreNotFound(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Inbox"])
            let body = #"{"zones":[{"zoneName":"Inbox","ownerRecordName":"_ffffffffffffffffffffffffffffffff"}]}"#
            let (_, data) = try await server.post("zones/lookup", body)
            #expect(try WireCoding.decode(ZonesLookup.Response.self, from: data).zones.first?.error?.serverErrorCode == .zoneNotFound)
        }
    }
}
