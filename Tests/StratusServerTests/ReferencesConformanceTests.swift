import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Reference actions: DELETE_SELF cascades, VALIDATE guards (Apple's CloudKit Web Services Reference: “Reference dictionary”).
@Suite struct ReferencesConformanceTests {
    static let backends = RecordStoreBackend.allCases

    static func ref(_ name: String, _ action: ReferenceAction) -> FieldValue {
        .reference(Reference(recordName: name, action: action))
    }

    /// Deleting a record deletes, transitively and in the same transaction, every record that
    /// refers to it with DELETE_SELF; the change feed shows each as a tombstone.
    @Test(arguments: backends) func deleteSelfCascadesTransitively(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Z"])
            try await server.create("list", type: "List", fields: ["title": .string("groceries")], zone: "Z")
            try await server.create("item", type: "Item", fields: ["list": Self.ref("list", .deleteSelf)], zone: "Z")
            try await server.create("note", type: "Note", fields: ["item": Self.ref("item", .deleteSelf)], zone: "Z")
            try await server.create("bystander", type: "Note", fields: ["item": Self.ref("item", .none)], zone: "Z")
            let (_, token) = try await server.allChanges(zone: "Z")
            let results = try await server.modify([.forceDelete(RecordID(recordName: "list", zoneID: ZoneID(zoneName: "Z")))], zone: "Z")
            #expect(results.first?.record?.deleted == true)
            let lookups = try await server.lookup(["list", "item", "note", "bystander"], zone: "Z")
            #expect(lookups.map(\.code) == [.notFound, .notFound, .notFound, nil])
            let delta = try await server.allChanges(zone: "Z", from: token)
            #expect(Set(delta.records.filter { $0.deleted == true }.compactMap(\.recordName)) == ["list", "item", "note"])
        }
    }

    /// A reference list with DELETE_SELF cascades too.
    @Test(arguments: backends) func deleteSelfInAReferenceListCascades(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("a", fields: [:])
            try await server.create("b", fields: [:])
            try await server.create(
                "child",
                fields: [
                    "parents": .referenceList([Reference(recordName: "a", action: .deleteSelf), Reference(recordName: "b", action: ReferenceAction.none)])
                ])
            _ = try await server.modify([.forceDelete(RecordID(recordName: "a", zoneID: .defaultZone))])
            #expect(try await server.lookup(["child", "b"]).map(\.code) == [.notFound, nil])
        }
    }

    /// A VALIDATE reference to a missing record is refused.
    @Test(arguments: backends) func validateReferenceToMissingRecordIsRefused(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let results = try await server.modify([.create(Record(recordName: "c", recordType: "Note", fields: ["owner": Self.ref("ghost", .validate)]))])
            #expect(results.first?.code == .validatingReferenceError)
            #expect(results.first?.error?.reason?.contains("ghost") == true)
            #expect(try await server.lookup(["c"]).first?.code == .notFound)
        }
    }

    /// A record that a VALIDATE reference points at cannot be deleted until the reference goes.
    @Test(arguments: backends) func validateReferenceBlocksDeletingItsTarget(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("target", fields: [:])
            let source = try await server.create("source", fields: ["t": Self.ref("target", .validate)])
            let blocked = try await server.modify([.forceDelete(RecordID(recordName: "target", zoneID: .defaultZone))])
            #expect(blocked.first?.code == .validatingReferenceError)
            #expect(blocked.first?.code?.httpStatus == 412)
            #expect(try await server.lookup(["target"]).first?.record != nil)
            _ = try await server.modify([.replace(Record(recordName: "source", fields: [:]), expecting: try #require(source.recordChangeTag))])
            let allowed = try await server.modify([.forceDelete(RecordID(recordName: "target", zoneID: .defaultZone))])
            #expect(allowed.first?.record?.deleted == true)
        }
    }

    /// A VALIDATE reference inside the cascade being deleted does not block it.
    @Test(arguments: backends) func validateReferenceFromInsideTheCascadeDoesNotBlock(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("root", fields: [:])
            try await server.create("leaf", fields: ["root": Self.ref("root", .deleteSelf), "check": Self.ref("root", .none)])
            try await server.create("leaf2", fields: ["leaf": Self.ref("leaf", .deleteSelf), "guard": Self.ref("root", .validate)])
            let results = try await server.modify([.forceDelete(RecordID(recordName: "root", zoneID: .defaultZone))])
            #expect(results.first?.record?.deleted == true)
            #expect(try await server.lookup(["root", "leaf", "leaf2"]).allSatisfy { $0.code == .notFound })
        }
    }

    /// At most the configured number of DELETE_SELF references may point at one record.
    @Test(arguments: backends) func deleteSelfReferencesPerTargetAreLimited(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.limits.maximumDeleteSelfReferencesPerTarget = 3 }) { server in
            try await server.create("target", fields: [:])
            for index in 0..<3 {
                try await server.create("s\(index)", fields: ["t": Self.ref("target", .deleteSelf)])
            }
            let results = try await server.modify([.create(Record(recordName: "s3", recordType: "Note", fields: ["t": Self.ref("target", .deleteSelf)]))])
            #expect(results.first?.code == .badRequest)
            #expect(results.first?.error?.reason?.contains("limit is 3") == true)
        }
    }

    /// References stay inside their record's zone.
    @Test(arguments: backends) func referencesAcrossZonesAreRefused(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["A", "B"])
            let reference = FieldValue.reference(Reference(recordName: "x", zoneID: ZoneID(zoneName: "B"), action: ReferenceAction.none))
            let results = try await server.modify([.create(Record(recordName: "r", recordType: "Note", fields: ["other": reference]))], zone: "A")
            #expect(results.first?.code == .badRequest)
        }
    }
}
