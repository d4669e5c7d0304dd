import Foundation
import StratusDocuments
import StratusTesting
import Testing

/// Offline edits on two devices: one current version, one conflict version, on both; resolving clears both.
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct DocumentsConflictTests {
    @Test func offlineEditsOnBothDevicesKeepBothVersionsUntilResolved() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair("laptop", "desktop")
            try await seed("report.txt", "base", from: a, to: b)

            a.transport.isOffline = true  // both offline: neither sees the other's change
            b.transport.isOffline = true
            try a.write("report.txt", "laptop edit")
            try b.write("report.txt", "desktop edit")
            await #expect(throws: (any Error).self) { try await a.sync() }
            await #expect(throws: (any Error).self) { try await b.sync() }
            a.transport.isOffline = false
            b.transport.isOffline = false
            try await a.sync()
            let conflicted = try await b.sync()
            #expect(conflicted.activities.contains(.conflict(path: "report.txt", device: "desktop")))
            try await a.sync()

            for device in [a, b] {
                #expect(try device.read("report.txt") == "laptop edit", "the first save stays current")
                let current = try await device.documents.currentVersion(of: "report.txt")
                #expect(current.device == "laptop" && current.isCurrent)
                let versions = try await device.documents.unresolvedConflictVersions(of: "report.txt")
                #expect(versions.count == 1)
                #expect(versions.first?.device == "desktop")
                if let version = versions.first {
                    let file = try await device.documents.contents(of: version)
                    #expect(try String(contentsOf: file, encoding: .utf8) == "desktop edit")
                }
            }

            let kept = try #require(try await a.documents.unresolvedConflictVersions(of: "report.txt").first)
            try await a.documents.resolveConflict(keeping: kept)
            try await b.sync()
            for device in [a, b] {
                #expect(try await device.documents.unresolvedConflictVersions(of: "report.txt").isEmpty)
                #expect(try await device.documents.allUnresolvedConflicts().isEmpty)
                #expect(try device.read("report.txt") == "desktop edit", "the kept version is current everywhere")
            }
        }
    }

    @Test func resolvingInFavourOfTheCurrentVersionDeletesTheOthers() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try await seed("x.txt", "0", from: a, to: b)
            try a.write("x.txt", "a")
            try b.write("x.txt", "b")
            try await a.sync()
            try await b.sync()
            try await b.documents.resolveConflict(keeping: try await b.documents.currentVersion(of: "x.txt"))
            try await a.sync()
            for device in [a, b] {
                #expect(try await device.documents.unresolvedConflictVersions(of: "x.txt").isEmpty)
                #expect(try device.read("x.txt") == "a")
            }
        }
    }

    @Test func aDeletionDoesNotDiscardAnEditFromAnotherDevice() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try await seed("keep.txt", "v1", from: a, to: b)
            try a.write("keep.txt", "v2")
            try FileManager.default.removeItem(at: b.root.appendingPathComponent("keep.txt"))
            try await a.sync()
            try await b.sync()
            #expect(try b.read("keep.txt") == "v2", "the edit wins over the deletion")
        }
    }

    @Test func anEditAndARenameOnTwoDevicesMergeWithoutAConflict() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try await seed("draft.txt", "v1", from: a, to: b)
            try FileManager.default.createDirectory(at: a.root.appendingPathComponent("Final"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: a.root.appendingPathComponent("draft.txt"), to: a.root.appendingPathComponent("Final/paper.txt"))
            try b.write("draft.txt", "v2 from B")
            try await a.sync()
            let merged = try await b.sync()
            #expect(merged.activities.contains(.renamed(from: "draft.txt", to: "Final/paper.txt")))
            try await a.sync()
            for device in [a, b] {
                #expect(try device.files() == ["Final/paper.txt"])
                #expect(try device.read("Final/paper.txt") == "v2 from B")
                #expect(try await device.documents.allUnresolvedConflicts().isEmpty)
            }

            // Renamed on both: the later rename is applied over the earlier one.
            try FileManager.default.moveItem(at: a.root.appendingPathComponent("Final/paper.txt"), to: a.root.appendingPathComponent("x.txt"))
            try FileManager.default.moveItem(at: b.root.appendingPathComponent("Final/paper.txt"), to: b.root.appendingPathComponent("y.txt"))
            try await a.sync()
            try await b.sync()
            try await a.sync()
            #expect(try a.files() == ["y.txt"] && b.files() == ["y.txt"])
            #expect(try a.read("y.txt") == "v2 from B")
        }
    }

    @Test func aRenameAgainstAnEditAndIdenticalEditsMergeWithoutAConflict() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try await seed("doc.txt", "v1", from: a, to: b)
            try a.write("doc.txt", "edited on A")
            try FileManager.default.moveItem(at: b.root.appendingPathComponent("doc.txt"), to: b.root.appendingPathComponent("moved.txt"))
            try await a.sync()
            try await b.sync()
            try await a.sync()
            for device in [a, b] {
                #expect(try device.files() == ["moved.txt"])
                #expect(try device.read("moved.txt") == "edited on A")
            }

            try a.write("moved.txt", "same bytes")
            try b.write("moved.txt", "same bytes")
            try await a.sync()
            let second = try await b.sync()
            #expect(!second.activities.contains { if case .conflict = $0 { true } else { false } })
            for device in [a, b] {
                #expect(try device.read("moved.txt") == "same bytes")
                #expect(try await device.documents.allUnresolvedConflicts().isEmpty)
            }
        }
    }

    @Test func deletingADocumentDeletesItsConflictVersionsEverywhere() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try await seed("doomed.txt", "0", from: a, to: b)
            try a.write("doomed.txt", "a")
            try b.write("doomed.txt", "b")
            try await a.sync()
            try await b.sync()
            try await a.sync()
            #expect(try await a.documents.allUnresolvedConflicts().count == 1)
            try FileManager.default.removeItem(at: a.root.appendingPathComponent("doomed.txt"))
            try await a.sync()
            try await b.sync()
            for device in [a, b] {
                #expect(try device.files().isEmpty)
                #expect(try await device.documents.allUnresolvedConflicts().isEmpty)
            }
            #expect(try await fixture.serverRecordNames().isEmpty, "no orphan version records on the server")
        }
    }

    @Test func twoNewDocumentsAtOnePathBothSurviveUnderDistinctNames() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try a.write("Inbox/same.txt", "from A")
            try b.write("Inbox/same.txt", "from B")
            try await a.sync()
            try await b.sync()
            try await a.sync()
            try await b.sync()
            let expected = try a.files()
            #expect(expected.count == 2)
            #expect(try b.files() == expected)
            #expect(expected.contains("Inbox/same.txt"))
            #expect(expected.contains("Inbox/same (A).txt") || expected.contains("Inbox/same (B).txt"))
            for path in expected {
                #expect(try a.read(path) == b.read(path))
            }
            let contents = Set(try expected.compactMap { try a.read($0) })
            #expect(contents == ["from A", "from B"], "neither document is lost")
            for device in [a, b] {
                #expect(try await device.documents.documents().map(\.path) == expected)
            }
        }
    }
}
