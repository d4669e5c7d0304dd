// The seed's other samples in Stratus: the key-value store (NSUbiquitousKeyValueStore), and a
// CKQuerySubscription-style subscription with the delta fetch a push triggers.
import Foundation
import StratusClient
import StratusKeyValue

enum SettingsExample {
    /// `NSUbiquitousKeyValueStore.default`: set a value, read it back, hear of other devices' changes.
    static func followTheme(container: Container, support: URL, apply: @escaping @Sendable (String?) -> Void) throws -> Task<Void, Never> {
        let store = try KeyValueStore(container: container, databaseURL: support.appendingPathComponent("settings.sqlite"))
        try store.set("dark", forKey: "theme")
        apply(store.string(forKey: "theme"))
        return Task {
            for await change in store.didChangeExternally where change.changedKeys.contains("theme") {
                apply(store.string(forKey: "theme"))
            }
        }
    }
}

enum SubscriptionExample {
    /// `CKQuerySubscription(recordType: "Person", predicate: …, options: [.firesOnRecordCreation, …])`,
    /// saved in the private database.
    static func subscribeToPeople(in database: Database) async throws -> Subscription {
        let people = Subscription(
            subscriptionID: "people", subscriptionType: .query, query: Query(recordType: "Person"), firesOn: [.create, .update, .delete])
        return try await database.save(people)
    }

    /// What a push triggers: the zone's changes since the last token (`CKFetchRecordZoneChangesOperation`).
    static func fetchDelta(
        in database: Database, zone: ZoneID, since token: SyncToken?
    ) async throws -> (changed: [Record], deleted: [RecordID], next: SyncToken) {
        let changes = try await database.allRecordZoneChanges(inZoneWith: zone, since: token)
        return (try changes.modifications(), changes.deletions.map(\.recordID), changes.changeToken)
    }

    /// Pushes, as they arrive, each answered by a delta fetch.
    static func follow(_ container: Container, zone: ZoneID, apply: @escaping @Sendable ([Record], [RecordID]) -> Void) async throws {
        var token: SyncToken?
        for try await notification in container.notifications() where notification.zoneID == zone || notification.isResync {
            let delta = try await fetchDelta(in: container.privateCloudDatabase, zone: zone, since: token)
            apply(delta.changed, delta.deleted)
            token = delta.next
        }
    }
}
