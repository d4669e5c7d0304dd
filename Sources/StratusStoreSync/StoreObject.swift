import Foundation
import StratusStore
import StratusSync
import Synchronization

/// What ``StoreBridge`` needs of every ``StoreObject`` specialization.
protocol AnyStoreObject: SyncableEntity {
    /// The mapping's entity name.
    static var entityName: String { get }
    /// Makes the view of an object (`nil` ID: a new object the sync framework fills, inserted when applied).
    init(bridge: StoreBridge, objectID: ObjectID?)
    /// The managed object's ID, once it has one.
    var objectID: ObjectID? { get }
    /// Sets the ID after the object was inserted.
    func setObjectID(_ objectID: ObjectID)
    /// The values as last loaded or set; `nil` before the first read.
    var loadedValues: [String: any Sendable]? { get }
    /// The keys set since the last ``takeDirtyValues()``, with their values.
    func takeDirtyValues() -> [String: (any Sendable)?]
    /// Whether the managed object was found when the values were loaded.
    var exists: Bool { get }
    /// Sets the values loaded from the store (`nil`: the store no longer has the object), unless already loaded.
    func fill(_ loaded: [String: any Sendable]?)
    /// Drops the loaded values unless some were set since the last ``takeDirtyValues()``, so the next
    /// read loads what the store holds now.
    func invalidateIfClean()
}

/// The sync framework's view of one managed object: a `Sendable` snapshot of its synced values,
/// loaded from the store on the first read, whose writes are remembered until ``StoreSync`` writes
/// them back to the store (with its own transaction author).
///
/// Values are in the sync framework's shapes: integers as `Int`, decimals, UUIDs and URLs as
/// `String`, to-one relationships as another ``StoreObject``, to-many as `[any SyncableEntity]`
/// ordered by sync ID.
final class StoreObject<Mapping: StoreEntityMapping>: AnyStoreObject {
    struct State {
        var objectID: ObjectID?
        var values: [String: any Sendable]?
        var dirty: Set<String> = []
        var exists = true
    }

    let bridge: StoreBridge
    private let state: Mutex<State>

    static var entityName: String { Mapping.entityName }
    static var recordType: String { Mapping.recordType }
    static var mapping: [String: String] { Mapping.attributes }
    static var references: [String: String] { Mapping.toOne.mapValues(\.field) }
    static var referenceTypes: [String: any SyncableEntity.Type] { Mapping.toOne.mapValues { $0.target.objectType } }
    static var referenceLists: [ReferenceList] {
        Mapping.toMany.sorted { $0.key < $1.key }.map { ReferenceList(entityType: $0.value.target.objectType, localKey: $0.key, remoteKey: $0.value.field) }
    }

    init(bridge: StoreBridge, objectID: ObjectID?) {
        self.bridge = bridge
        state = Mutex(State(objectID: objectID, values: objectID == nil ? [:] : nil))
    }

    var objectID: ObjectID? { state.withLock { $0.objectID } }
    var loadedValues: [String: any Sendable]? { state.withLock { $0.values } }
    var exists: Bool {
        ensureLoaded()
        return state.withLock { $0.exists }
    }

    func setObjectID(_ objectID: ObjectID) {
        state.withLock { $0.objectID = objectID }
    }

    func value(forKey key: String) -> (any Sendable)? {
        ensureLoaded()
        return state.withLock { $0.values?[key] }
    }

    func setValue(_ value: (any Sendable)?, forKey key: String) {
        ensureLoaded()
        state.withLock { state in
            state.values?[key] = value
            state.dirty.insert(key)
        }
    }

    func takeDirtyValues() -> [String: (any Sendable)?] {
        state.withLock { state in
            var taken: [String: (any Sendable)?] = [:]
            for key in state.dirty { taken[key] = .some(state.values?[key]) }
            state.dirty = []
            return taken
        }
    }

    /// Loads the values from the store the first time they are needed (blocking on the bridge's reading context).
    private func ensureLoaded() {
        guard let id = state.withLock({ $0.values == nil ? $0.objectID : nil }) else { return }
        fill(bridge.load(id))
    }

    func invalidateIfClean() {
        state.withLock { state in
            guard state.dirty.isEmpty, state.objectID != nil else { return }
            state.values = nil
            state.exists = true
        }
    }

    func fill(_ loaded: [String: any Sendable]?) {
        state.withLock { state in
            guard state.values == nil else { return }
            state.values = loaded ?? [:]
            state.exists = loaded != nil
        }
    }
}
