import Foundation
import StratusClient
import StratusLogging
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import StratusWire
import Testing

/// `StoreSync` has what `StratusSync` offers an entity type (issue 21, section 2): `isWeak`
/// cascades, a reference placeholder of the store's own, and per-entity sync-ID and change-date keys.
@Suite struct StoreSyncEntityOptionsTests {
    /// A task with no list arrives in the other store's own "Inbox" placeholder, which never reaches
    /// the server; its reminder (a weak entity) goes with it when the task is deleted, on every
    /// device; the task's record name and change date live in its own attributes.
    @Test func weakCascadesPlaceholdersAndPerEntityKeysWorkThroughStoreSync() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await TasksModel.device("a", in: world)
            let b = try await TasksModel.device("b", in: world)
            try await a.sync.start(push: false)
            try await b.sync.start(push: false)

            try await a.edit { context in
                let task = context.insert(entity: "Task")
                task.setValue("Call", forKey: "title")
                let reminder = context.insert(entity: "Reminder")
                reminder.setValue("9:00", forKey: "at")
                task.setValue(reminder, forKey: "reminder")
            }
            let taskID = try #require(try await a.read { try $0.fetchObjectIDs(FetchRequest(entityName: "Task")).first })
            try await a.sync.captureLocalChanges()
            let (remoteID, dated) = try await a.read { context in
                let task = try context.existingObject(with: taskID)
                return (task.value(forKey: "remoteID") as? String, task.value(forKey: "remoteModified") is Date)
            }
            #expect(remoteID != nil && dated, "the record name and change date are written to the task's own keys")

            try await b.sync.sync()
            let arrived = try await b.read { context in
                try context.fetch(FetchRequest(entityName: "Task")).map { task in
                    let list = task.value(forKey: "list") as? ManagedObject
                    let reminder = task.value(forKey: "reminder") as? ManagedObject
                    return [
                        task.value(forKey: "title") as? String, list?.value(forKey: "name") as? String,
                        reminder?.value(forKey: "at") as? String, task.value(forKey: "remoteID") as? String,
                    ]
                }
            }
            #expect(arrived == [["Call", "Inbox", "9:00", remoteID]], "no list: the store's placeholder")
            let configuration = a.sync.controller.configuration
            let everything = try await configuration.container.privateCloudDatabase.allRecordZoneChanges(
                inZoneWith: ZoneID(zoneName: configuration.zoneName), since: nil)
            #expect(try everything.modifications().map(\.recordType).sorted() == ["Reminder", "Task"], "the placeholder is never uploaded")

            try await a.edit { context in context.delete(try context.existingObject(with: taskID)) }
            try await a.sync.captureLocalChanges()
            try await b.sync.sync()
            #expect(try await b.count("Task") == 0)
            #expect(try await b.count("Reminder") == 0, "the weak reminder went with its task")
            try await a.sync.sync()
            #expect(try await a.count("Reminder") == 0)
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }
}

/// Lists, tasks and reminders: a task's list has a placeholder, its reminder is weak, and tasks keep
/// their record name and change date under keys of their own (one declared `String`, one `String?`).
enum TasksModel {
    static func make() throws -> ObjectModel {
        let sync = StoreSync.syncAttributes()
        return try ObjectModel(
            version: "1",
            entities: [
                EntityDescription(
                    "List", attributes: [AttributeDescription("name", .string)] + sync,
                    relationships: [.toMany("tasks", destination: "Task", inverse: "list")]),
                EntityDescription(
                    "Task",
                    attributes: [AttributeDescription("title", .string)]
                        + StoreSync.syncAttributes(syncIdKey: "remoteID", changeDateKey: "remoteModified"),
                    relationships: [
                        .toOne("list", destination: "List", inverse: "tasks"), .toOne("reminder", destination: "Reminder", inverse: "task"),
                    ]),
                EntityDescription(
                    "Reminder", attributes: [AttributeDescription("at", .string)] + sync,
                    relationships: [.toOne("task", destination: "Task", inverse: "reminder")]),
            ])
    }

    /// A device of this model, syncing the three entities.
    static func device(_ name: String, in world: StoreSyncWorld) async throws -> StoreDevice {
        let store = PersistentContainer(name: name, model: try make(), url: world.directory.url.appendingPathComponent("\(name).store"))
        try await store.loadPersistentStores()
        let network = SwitchableTransport(StoreSyncWorld.sharedTransport)
        var configuration = SyncConfiguration(
            container: world.server.deviceContainer(transport: network), entityTypes: [], deviceID: "device-\(name)",
            bookkeepingPath: world.directory.path("\(name).sync.sqlite"), logger: .disabled)
        configuration.reconnectInterval = nil
        let sync = try StoreSync(store: store, entities: [ListSync.self, TaskSync.self, ReminderSync.self], configuration: configuration)
        return StoreDevice(name: name, store: store, sync: sync, network: network, options: StoreDeviceOptions())
    }
}

enum ListSync: StoreEntityMapping {
    static let entityName = "List"
    static let attributes = ["name": "name"]

    /// The store's "Inbox" list, made the first time.
    static func referencePlaceholder(in context: ObjectContext) throws -> ManagedObject? {
        if let inbox = try context.fetch(FetchRequest(entityName: "List", predicate: PredicateKey<String>("name") == "Inbox")).first {
            return inbox
        }
        let inbox = context.insert(entity: "List")
        inbox.setValue("Inbox", forKey: "name")
        return inbox
    }
}

enum TaskSync: StoreEntityMapping {
    static let entityName = "Task"
    static let attributes = ["title": "title"]
    static let syncIdKey = "remoteID"
    static let changeDateKey: String? = "remoteModified"
    static var toOne: [String: StoreRelationshipMapping] {
        [
            "list": StoreRelationshipMapping(field: "list", target: ListSync.self),
            "reminder": StoreRelationshipMapping(field: "reminder", target: ReminderSync.self),
        ]
    }
}

enum ReminderSync: StoreEntityMapping {
    static let entityName = "Reminder"
    static let attributes = ["at": "at"]
    static let isWeak = true
}

extension StoreDevice {
    /// How many objects of `entity` the store holds.
    func count(_ entity: String) async throws -> Int {
        try await read { try $0.count(for: FetchRequest(entityName: entity)) }
    }
}
