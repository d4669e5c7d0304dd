// The seed's delegate (ZenCloudKitProtocol) in Stratus: how the controller finds, creates and
// deletes people in the Core Data–style store, and `finishSync()` once they are saved.
import Foundation
import StratusClient
import StratusStore
import StratusStoreSync
import StratusSync

/// The app's ``SyncDelegate`` over ``PeopleStack``: the controller's entities live in one background
/// context (`context`), reached through its confinement, never across threads.
final class PeopleStore: SyncDelegate {
    let stack: PeopleStack
    /// Where fetched changes are applied: a private-queue child of the view context.
    let context: ObjectContext

    init(stack: PeopleStack) {
        self.stack = stack
        context = stack.newBackgroundContext()
    }

    private var confinement: SyncConfinement { SyncConfinement(context: context) }

    // zenAllEntities(ofType:)
    func allEntities(ofType type: any SyncableEntity.Type) async throws -> [any SyncableEntity] {
        guard let type = type as? any SyncableManagedObject.Type else { return [] }
        let context = context
        return try await confinement.run(handing: {
            try context.fetch(FetchRequest(entityName: type.entityName)).map { type.init(object: $0) as any SyncableEntity }
        })
    }

    // zenCreateEntity(ofType:)
    func createEntity(ofType type: any SyncableEntity.Type) async throws -> any SyncableEntity {
        guard let type = type as? any SyncableManagedObject.Type else {
            throw SyncError(.unknownEntityType, "\(type) is not one of the people entities")
        }
        let context = context
        return try await confinement.run(handing: { type.init(object: context.insert(entity: type.entityName)) as any SyncableEntity })
    }

    // zenFetchEntity(ofType:syncId:), with predicateForId
    func entity(ofType type: any SyncableEntity.Type, syncID: String) async throws -> (any SyncableEntity)? {
        guard let type = type as? any SyncableManagedObject.Type else { return nil }
        let context = context
        return try await confinement.run(handing: {
            let request = FetchRequest(entityName: type.entityName, predicate: type.predicateForId(syncID))
            return try context.fetch(request).first.map { type.init(object: $0) as any SyncableEntity }
        })
    }

    // zenSyncDidFinish(for:newRecords:updatedRecords:deletedRecords:finishSync:)
    func syncController(_ controller: SyncController, didFinishSync changes: SyncChanges, finishSync: FinishSync) async {
        let context = context
        let deleted = changes.deleted
        do {
            try await confinement.run {
                for deletion in deleted {
                    // ZKDeleteInfo: the entity type and the sync ID.
                    guard let type = deletion.entityType as? any SyncableManagedObject.Type else { continue }
                    let request = FetchRequest(entityName: type.entityName, predicate: type.predicateForId(deletion.syncID))
                    for object in try context.fetch(request) { context.delete(object) }
                }
                try context.save()
            }
            try await context.saveChain()
            try await finishSync()  // only now does the controller commit what it fetched
        } catch {
            print("could not store the fetched changes; they come again with the next sync: \(error)")
        }
    }

    // zenEntityDidSaveToCloud(entity:record:error:): the sync ID and date are in the entity; save them.
    func syncController(_ controller: SyncController, didSave entity: (any SyncableEntity)?, record: Record?, error: (any Error)?) async {
        if let error { print("not saved to the cloud: \(error)") }
    }

    // referencePlaceholder: the store's "Unassigned" team.
    func referencePlaceholder(for type: any SyncableEntity.Type) async throws -> (any SyncableEntity)? {
        guard type == Team.self else { return nil }
        let context = context
        return try await confinement.run(handing: { try Team.referencePlaceholder(in: context).map { Team(object: $0) as any SyncableEntity } })
    }

    func isReferencePlaceholder(_ entity: any SyncableEntity) -> Bool {
        (entity as? Team)?.syncIDValue == Team.unassignedID
    }
}

extension Team {
    /// The sync ID (read on the object's queue).
    var syncIDValue: String? { attribute("syncID") }
}
