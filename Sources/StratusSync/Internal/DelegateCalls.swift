import Foundation
import StratusClient

/// The delegate's calls that take or give entities, made outside the controller's isolation: an
/// entity need not be `Sendable`, so it comes back wrapped in an ``EntityRef`` and goes out unwrapped
/// only here, never crossing into the actor.
extension SyncController {
    nonisolated func delegateEntity(ofType type: any SyncableEntity.Type, syncID: String) async throws -> EntityRef? {
        try await delegate.entity(ofType: type, syncID: syncID).map(EntityRef.init)
    }

    nonisolated func delegateCreateEntity(ofType type: any SyncableEntity.Type) async throws -> EntityRef {
        EntityRef(try await delegate.createEntity(ofType: type))
    }

    nonisolated func delegateAllEntities(ofType type: any SyncableEntity.Type) async throws -> [EntityRef] {
        try await delegate.allEntities(ofType: type).map(EntityRef.init)
    }

    nonisolated func delegatePlaceholder(for type: any SyncableEntity.Type) async throws -> EntityRef? {
        try await delegate.referencePlaceholder(for: type).map(EntityRef.init)
    }

    nonisolated func delegateDidSave(_ entity: EntityRef?, record: StratusClient.Record?, error: (any Error)?) async {
        await delegate.syncController(self, didSave: entity?.entity, record: record, error: error)
    }
}
