import Foundation
import StratusStore
import StratusSync
import Synchronization

/// What ``StoreBridge`` needs of every ``StoreObject`` specialization.
protocol AnyStoreObject: SyncableEntity, Sendable {
    /// The mapping's entity name.
    static var entityName: String { get }
    /// Makes the view of an object (`nil` ID: a new object the sync framework fills, inserted when applied).
    init(bridge: StoreBridge, objectID: ObjectID?)
    /// The managed object's ID, once it has one.
    var objectID: ObjectID? { get }
    /// Sets the ID after the object was inserted.
    func setObjectID(_ objectID: ObjectID)
    /// The values as last loaded or set; `nil` before the first read.
    var loadedValues: [String: Any]? { get }
    /// The keys set since the last ``takeDirtyValues()``, with their values.
    func takeDirtyValues() -> [String: Any?]
    /// The dirty values among `keys`, which are clean afterwards; the other keys stay dirty.
    func takeDirtyValues(only keys: Set<String>) -> [String: Any?]
    /// Whether the managed object was found when the values were loaded.
    var exists: Bool { get }
    /// Sets the values loaded from the store (`nil`: the store no longer has the object), unless already loaded.
    func fill(_ loaded: [String: Any]?)
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
        var values: [String: Any]?
        var dirty: Set<String> = []
        var exists = true
    }

    let bridge: StoreBridge
    private let state: Mutex<State>

    static var entityName: String { Mapping.entityName }
    static var recordType: String { Mapping.recordType }
    static var syncIdKey: String { Mapping.declaredSyncIdKey(Mapping.syncIdKey) }
    static var changeDateKey: String { Mapping.declaredChangeDateKey(Mapping.changeDateKey) }
    static var isWeak: Bool { Mapping.isWeak }
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
    var loadedValues: [String: Any]? { state.withLock { $0.values } }
    var exists: Bool {
        ensureLoaded()
        return state.withLock { $0.exists }
    }

    func setObjectID(_ objectID: ObjectID) {
        state.withLock { $0.objectID = objectID }
    }

    func value(forKey key: String) -> Any? {
        ensureLoaded()
        return state.withLock { $0.values?[key] }
    }

    func setValue(_ value: Any?, forKey key: String) {
        ensureLoaded()
        let value = SyncValue(value)
        state.withLock { state in
            state.values?[key] = value.value
            state.dirty.insert(key)
        }
    }

    func takeDirtyValues() -> [String: Any?] {
        state.withLock { state in Self.take(state.dirty, from: &state) }
    }

    func takeDirtyValues(only keys: Set<String>) -> [String: Any?] {
        state.withLock { state in Self.take(state.dirty.intersection(keys), from: &state) }
    }

    private static func take(_ keys: Set<String>, from state: inout State) -> [String: Any?] {
        var taken: [String: Any?] = [:]
        for key in keys { taken[key] = .some(state.values?[key]) }
        state.dirty.subtract(keys)
        return taken
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

    func fill(_ loaded: [String: Any]?) {
        let loaded = loaded.map(SyncValue.init)
        state.withLock { state in
            guard state.values == nil else { return }
            state.values = (loaded?.value as? [String: Any]) ?? [:]
            state.exists = loaded != nil
        }
    }
}

/// A value the sync framework hands a ``StoreObject``: a plain value (`String`, `Date`, `Int`…), a
/// ``StoreObject`` or an array of them, all `Sendable`, typed `Any` only because field access is untyped.
// Safety: every value the framework and the bridge set is one of those Sendable kinds.
struct SyncValue: @unchecked Sendable {
    let value: Any?

    init(_ value: Any?) {
        self.value = value
    }
}
