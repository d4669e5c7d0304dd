// The seed's controller set-up (ZenCloudKit.sharedInstance.setup(container:ofType:syncIdKey:
// changeDateKey:entities:ignoreKeys:deviceId:)) in Stratus, and `person.cloud.save()`.
import Foundation
import StratusClient
import StratusStore
import StratusStoreSync
import StratusSync

enum CloudController {
    /// Sets up sync once: container and database, the global keys, the entity types, the sync IDs to
    /// leave alone, this device's ID. Debug logging is on, as ZenCloudKit's `debugMode` was.
    static func setUp(
        container: Container, store: PeopleStore, deviceID: String, bookkeeping: URL, configure: (inout SyncConfiguration) -> Void = { _ in }
    ) throws -> SyncController {
        var configuration = SyncConfiguration(
            container: container, databaseScope: .private, entityTypes: [Person.self, Team.self, Address.self, Skill.self],
            syncIdKey: "syncID", changeDateKey: "modified", ignoreKeys: [Team.unassignedID], deviceID: deviceID,
            bookkeepingPath: bookkeeping.path)
        configure(&configuration)
        let controller = try SyncController(configuration: configuration, delegate: store)
        controller.makeCurrent()  // what `person.cloud` uses
        return controller
    }

    /// The seed's `person.iCloud.save()` from the person's own queue: `saveAndWait()` inside `perform`.
    static func renameAndSave(_ id: ObjectID, to firstName: String, in context: ObjectContext) async throws {
        try await context.perform { context in
            let person = try context.existingObject(Person.self, with: id)
            person.firstName = firstName
            try person.cloud.saveAndWait()
            try context.save()
        }
    }

    /// The same from anywhere: the controller hops to the person's queue to read it.
    static func save(_ person: Person) async throws {
        try await person.cloud.save()
    }
}
