import Foundation
import StratusClient
import StratusTesting
import StratusWire
import Testing

@testable import StratusSync

/// Setup checks and the pure parts: the session state machine and the conflict resolver.
@Suite struct SyncSetupTests {
    /// A type with neither its own nor a global syncIdKey fails with an error naming it.
    @Test func missingKeysNameTheType() async throws {
        try await SyncWorld.run { world in
            let container = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: world.server.http.url(""),
                authentication: .none, transport: SyncWorld.sharedTransport)
            let configuration = SyncConfiguration(
                container: container, entityTypes: [Orphan.self], changeDateKey: "modified", deviceID: "d",
                bookkeepingPath: world.directory.path("setup.sqlite"))
            let error = #expect(throws: SyncError.self) { try SyncController(configuration: configuration, delegate: MemoryStore()) }
            #expect(error?.code == .missingKey)
            #expect(error?.message.contains("Orphan") == true)
            #expect(error?.message.contains("syncIdKey") == true)

            var sharedDatabase = configuration
            sharedDatabase.syncIdKey = "syncID"
            sharedDatabase.databaseScope = .shared
            let unsupported = #expect(throws: SyncError.self) { try SyncController(configuration: sharedDatabase, delegate: MemoryStore()) }
            #expect(unsupported?.code == .unsupported)
            #expect(unsupported?.message.contains("shared") == true)
        }
    }

    @Test func stateMachineTracksPauseWorkAndCatchUp() {
        var machine = SyncSessionStateMachine<Int, Int>()
        #expect(!machine.status.isCaughtUp)
        #expect(machine.beginWork() == .run)
        #expect(machine.status.isSyncing)
        machine.fetched()
        machine.endWork(pending: 0, error: nil)
        #expect(!machine.status.isCaughtUp)
        machine.committed(date: Date(timeIntervalSince1970: 1))
        #expect(machine.status.isCaughtUp && machine.status.lastSyncDate == Date(timeIntervalSince1970: 1))
        machine.pause()
        #expect(machine.beginWork() == .skipPaused)
        #expect(!machine.status.isCaughtUp)
        machine.outboxChanged(pending: 3)
        #expect(machine.resume() == .run)
        #expect(machine.status.pendingCount == 3 && !machine.status.isCaughtUp)
        #expect(machine.beginWork() == .run)
        machine.endWork(pending: 1, error: "offline")
        #expect(!machine.status.isSyncing && machine.status.lastError == "offline" && !machine.status.isCaughtUp)
    }

    @Test func threeWayMergeRules() {
        let a = Reference(recordName: "a")
        let b = Reference(recordName: "b")
        let c = Reference(recordName: "c")
        let versions = ConflictVersions(
            recordType: "Note", recordName: "n",
            base: ["t": .string("base"), "u": .string("base"), "v": .string("base"), "l": .referenceList([a, b])],
            local: ["t": .string("local"), "u": .string("base"), "v": .string("local"), "l": .referenceList([b, c])],
            server: ["t": .string("base"), "u": .string("server"), "v": .string("server"), "l": .referenceList([a, b, Reference(recordName: "d")])],
            keys: ["t", "u", "v", "l"], localEditDate: Date(timeIntervalSince1970: 10), serverModificationDate: Date(timeIntervalSince1970: 20))
        let merged = ConflictResolver.resolve(versions, policy: .threeWayMerge)
        #expect(merged["t"] == .string("local"))
        #expect(merged["u"] == .string("server"))
        #expect(merged["v"] == .string("server"))  // both changed: the later change (the server's)
        #expect(merged["l"] == .referenceList([b, Reference(recordName: "d"), c]))  // a removed locally, d and c added
        let report = ConflictResolver.report(versions, resolved: merged)
        #expect(report.discardedLocal.keys.sorted() == ["v"])

        #expect(ConflictResolver.resolve(versions, policy: .serverWins) == versions.server)
        // Client wins for what this device changed; a field it did not change keeps the server's edit.
        var clientWins = versions.local
        clientWins["u"] = .string("server")
        #expect(ConflictResolver.resolve(versions, policy: .clientWins) == clientWins)
        #expect(ConflictResolver.resolve(versions, policy: .latestChangeWins) == versions.server)
    }
}
