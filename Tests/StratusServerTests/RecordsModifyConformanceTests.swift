import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// `records/modify` semantics, the same on every back end (Apple's CloudKit Web Services Reference: “records/modify”).
@Suite struct RecordsModifyConformanceTests {
    static let backends = RecordStoreBackend.allCases

    /// A create returns the whole record with a change tag and created/modified stamps.
    @Test(arguments: backends) func createReturnsTheRecordWithTagAndStamps(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let record = try await server.create("n1", fields: ["title": .string("Hello"), "count": .int64(3)])
            #expect(record.recordName == "n1")
            #expect(record.recordType == "Note")
            #expect(record.recordChangeTag != nil)
            #expect(record.fields?["title"] == .string("Hello"))
            #expect(record.created?.userRecordName == "_00000000000000000000000000000001")
            #expect(record.modified?.timestamp != nil)
            #expect(record.deleted == false)
        }
    }

    /// A create without a name gets a server-generated one.
    @Test(arguments: backends) func createWithoutNameGetsAGeneratedName(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let results = try await server.modify([.create(Record(recordType: "Note", fields: ["a": .int64(1)]))])
            let name = try #require(results.first?.record?.recordName)
            #expect(!name.isEmpty)
            #expect(try await server.lookup([name]).first?.record?.fields?["a"] == .int64(1))
        }
    }

    /// Creating a name that exists fails with EXISTS and changes nothing.
    @Test(arguments: backends) func createOfAnExistingNameFailsWithExists(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["title": .string("first")])
            let results = try await server.modify([.create(Record(recordName: "n1", recordType: "Note", fields: ["title": .string("second")]))])
            #expect(results.first?.code == .exists)
            #expect(results.first?.error?.serverRecord?.fields?["title"] == .string("first"))
            #expect(try await server.lookup(["n1"]).first?.record?.fields?["title"] == .string("first"))
        }
    }

    /// An update with the current tag merges: listed fields change, others stay.
    @Test(arguments: backends) func updateWithCurrentTagMergesFields(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let saved = try await server.create("n1", fields: ["title": .string("a"), "body": .string("b")])
            let tag = try #require(saved.recordChangeTag)
            let results = try await server.modify([.update(Record(recordName: "n1", fields: ["title": .string("A")]), expecting: tag)])
            let updated = try #require(results.first?.record)
            #expect(updated.fields?["title"] == .string("A"))
            #expect(updated.fields?["body"] == .string("b"))
            #expect(updated.recordChangeTag != tag)
            #expect(updated.created == saved.created)
            #expect(updated.modified != saved.modified)
        }
    }

    /// An update with a stale tag fails with CONFLICT and changes nothing.
    @Test(arguments: backends) func updateWithStaleTagFailsWithConflict(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let saved = try await server.create("n1", fields: ["title": .string("a")])
            let tag = try #require(saved.recordChangeTag)
            _ = try await server.modify([.update(Record(recordName: "n1", fields: ["title": .string("b")]), expecting: tag)])
            let stale = try await server.modify([.update(Record(recordName: "n1", fields: ["title": .string("c")]), expecting: tag)])
            #expect(stale.first?.code == .conflict)
            #expect(stale.first?.error?.reason?.contains("change tag") == true)
            // The conflict carries the server's version, so the client can merge without a fetch.
            #expect(stale.first?.error?.serverRecord?.fields?["title"] == .string("b"))
            #expect(stale.first?.error?.serverRecord?.recordChangeTag != tag)
            #expect(try await server.lookup(["n1"]).first?.record?.fields?["title"] == .string("b"))
        }
    }

    /// Update, replace and delete of a missing record fail with NOT_FOUND.
    @Test(arguments: backends) func taggedOperationsOnAMissingRecordFailWithNotFound(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let results = try await server.modify([
                .update(Record(recordName: "a", fields: ["x": .int64(1)]), expecting: "1"),
                .replace(Record(recordName: "b", fields: ["x": .int64(1)]), expecting: "1"),
                .delete(RecordID(recordName: "c", zoneID: .defaultZone), expecting: "1"),
            ])
            #expect(results.map(\.code) == [.notFound, .notFound, .notFound])
        }
    }

    /// forceUpdate ignores the tag, merges, and creates a missing record.
    @Test(arguments: backends) func forceUpdateIgnoresTagMergesAndCreates(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["title": .string("a"), "body": .string("b")])
            let results = try await server.modify([
                .forceUpdate(Record(recordName: "n1", fields: ["title": .string("A")])),
                .forceUpdate(Record(recordName: "n2", recordType: "Note", fields: ["title": .string("new")])),
            ])
            #expect(results.first?.record?.fields == ["title": .string("A"), "body": .string("b")])
            #expect(results.last?.record?.fields == ["title": .string("new")])
        }
    }

    /// A forceUpdate of a missing record without a record type says what is missing.
    @Test(arguments: backends) func forceUpdateOfMissingRecordNeedsARecordType(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let results = try await server.modify([.forceUpdate(Record(recordName: "ghost", fields: ["a": .int64(1)]))])
            #expect(results.first?.code == .badRequest)
            #expect(results.first?.error?.reason?.contains("recordType") == true)
        }
    }

    /// replace with the current tag drops the fields it does not list.
    @Test(arguments: backends) func replaceDropsUnlistedFields(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let saved = try await server.create("n1", fields: ["title": .string("a"), "body": .string("b")])
            let results = try await server.modify([
                .replace(Record(recordName: "n1", fields: ["title": .string("A")]), expecting: try #require(saved.recordChangeTag))
            ])
            #expect(results.first?.record?.fields == ["title": .string("A")])
            let stale = try await server.modify([.replace(Record(recordName: "n1", fields: [:]), expecting: try #require(saved.recordChangeTag))])
            #expect(stale.first?.code == .conflict)
        }
    }

    /// forceReplace replaces whatever is there, or creates.
    @Test(arguments: backends) func forceReplaceReplacesOrCreates(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["title": .string("a"), "body": .string("b")])
            let results = try await server.modify([
                .forceReplace(Record(recordName: "n1", fields: ["body": .string("B")])),
                .forceReplace(Record(recordName: "n2", recordType: "Note", fields: ["body": .string("x")])),
            ])
            #expect(results.first?.record?.fields == ["body": .string("B")])
            #expect(results.last?.record?.recordType == "Note")
        }
    }

    /// delete with the current tag removes the record and answers with a bare acknowledgement.
    @Test(arguments: backends) func deleteWithCurrentTagRemovesTheRecord(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let saved = try await server.create("n1", fields: ["title": .string("a")])
            let tag = try #require(saved.recordChangeTag)
            let stale = try await server.modify([.delete(RecordID(recordName: "n1", zoneID: .defaultZone), expecting: "stale")])
            #expect(stale.first?.code == .conflict)
            let results = try await server.modify([.delete(RecordID(recordName: "n1", zoneID: .defaultZone), expecting: tag)])
            #expect(results.first?.record == RecordPresenterFixture.deletion("n1"))
            #expect(try await server.lookup(["n1"]).first?.code == .notFound)
        }
    }

    /// forceDelete succeeds whether or not the record exists.
    @Test(arguments: backends) func forceDeleteSucceedsForMissingRecords(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["title": .string("a")])
            let results = try await server.modify([
                .forceDelete(RecordID(recordName: "n1", zoneID: .defaultZone)),
                .forceDelete(RecordID(recordName: "never", zoneID: .defaultZone)),
            ])
            #expect(results.allSatisfy { $0.record?.deleted == true })
            #expect(try await server.lookup(["n1"]).first?.code == .notFound)
        }
    }

    /// A deleted name can be created again.
    @Test(arguments: backends) func aDeletedNameCanBeCreatedAgain(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["v": .int64(1)])
            _ = try await server.modify([.forceDelete(RecordID(recordName: "n1", zoneID: .defaultZone))])
            let again = try await server.create("n1", fields: ["v": .int64(2)])
            #expect(again.fields?["v"] == .int64(2))
        }
    }

    /// Every save yields a tag never seen before for that record.
    @Test(arguments: backends) func everySaveReturnsANewChangeTag(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            var tag = try #require(try await server.create("n1", fields: ["v": .int64(0)]).recordChangeTag)
            var seen: Set<ChangeTag> = [tag]
            for value in 1...5 {
                let result = try await server.modify([.update(Record(recordName: "n1", fields: ["v": .int64(Int64(value))]), expecting: tag)])
                tag = try #require(result.first?.record?.recordChangeTag)
                #expect(seen.insert(tag).inserted)
            }
        }
    }

    /// Results come back one per operation, in request order, with per-item errors (HTTP 200).
    @Test(arguments: backends) func resultsComeInRequestOrderWithPerItemErrors(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("exists", fields: ["v": .int64(1)])
            let results = try await server.modify([
                .create(Record(recordName: "a", recordType: "Note", fields: ["v": .int64(1)])),
                .create(Record(recordName: "exists", recordType: "Note", fields: ["v": .int64(1)])),
                .create(Record(recordName: "b", recordType: "Note", fields: ["v": .int64(1)])),
            ])
            #expect(results.map { $0.record?.recordName ?? $0.error?.recordName } == ["a", "exists", "b"])
            #expect(results.map(\.code) == [nil, .exists, nil])
            #expect(results[1].error?.uuid != nil)
        }
    }

    /// In a custom zone an atomic batch with one failure applies nothing: the culprit reports
    /// its real code and every other operation ATOMIC_ERROR.
    @Test(arguments: backends) func atomicBatchInACustomZoneIsAllOrNothing(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Projects"])
            try await server.create("exists", fields: ["v": .int64(1)], zone: "Projects")
            let results = try await server.modify(
                [
                    .create(Record(recordName: "a", recordType: "Note", fields: ["v": .int64(1)])),
                    .create(Record(recordName: "exists", recordType: "Note", fields: ["v": .int64(2)])),
                    .create(Record(recordName: "b", recordType: "Note", fields: ["v": .int64(1)])),
                ], zone: "Projects", atomic: true
            )
            #expect(results.map(\.code) == [.atomicError, .exists, .atomicError])
            let lookups = try await server.lookup(["a", "b", "exists"], zone: "Projects")
            #expect(lookups.map(\.code) == [.notFound, .notFound, nil])
            #expect(lookups.last?.record?.fields?["v"] == .int64(1))
        }
    }

    /// With atomic false in a custom zone, the operations that can succeed do.
    @Test(arguments: backends) func nonAtomicBatchInACustomZoneAppliesTheRest(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Projects"])
            try await server.create("exists", fields: ["v": .int64(1)], zone: "Projects")
            let results = try await server.modify(
                [
                    .create(Record(recordName: "a", recordType: "Note", fields: ["v": .int64(1)])),
                    .create(Record(recordName: "exists", recordType: "Note", fields: ["v": .int64(2)])),
                ], zone: "Projects", atomic: false
            )
            #expect(results.map(\.code) == [nil, .exists])
            #expect(try await server.lookup(["a"], zone: "Projects").first?.record != nil)
        }
    }

    /// The default zone ignores `atomic`: a failure does not roll back the others.
    @Test(arguments: backends) func defaultZoneIgnoresAtomic(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("exists", fields: ["v": .int64(1)])
            let results = try await server.modify(
                [
                    .create(Record(recordName: "a", recordType: "Note", fields: ["v": .int64(1)])),
                    .create(Record(recordName: "exists", recordType: "Note", fields: ["v": .int64(2)])),
                ], atomic: true
            )
            #expect(results.map(\.code) == [nil, .exists])
        }
    }

    /// `desiredKeys` limits the fields echoed, per request and per operation; `[]` means none.
    @Test(arguments: backends) func desiredKeysLimitTheFieldsReturned(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let fields: [String: FieldValue] = ["a": .int64(1), "b": .int64(2), "c": .int64(3)]
            let results = try await server.modify(
                [
                    .create(Record(recordName: "x", recordType: "Note", fields: fields)),
                    .create(Record(recordName: "y", recordType: "Note", fields: fields), desiredKeys: ["c"]),
                    .create(Record(recordName: "z", recordType: "Note", fields: fields), desiredKeys: []),
                ], desiredKeys: ["a", "b"]
            )
            #expect(results[0].record?.fields == ["a": .int64(1), "b": .int64(2)])
            #expect(results[1].record?.fields == ["c": .int64(3)])
            #expect(results[2].record?.fields?.isEmpty ?? true)
        }
    }
}

/// The shapes the service answers with, spelled out for assertions.
enum RecordPresenterFixture {
    static func deletion(_ name: String) -> Record {
        var record = Record(recordName: name)
        record.deleted = true
        return record
    }
}
