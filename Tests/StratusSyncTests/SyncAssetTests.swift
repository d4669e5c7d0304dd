import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// An entity with binary fields: a thumbnail (small) and an image (large).
final class Photo: MemoryEntity {
    let storage = Mutex<[String: StoredValue]>([:])
    static let recordType = "Photo"
    static let mapping = ["caption": "caption", "thumb": "thumb", "image": "image"]
    var caption: String? { value(forKey: "caption") as? String }
    var thumb: Data? { value(forKey: "thumb") as? Data }
    var image: Data? { value(forKey: "image") as? Data }
}

/// `Data` fields over the threshold travel as assets and are downloaded on demand.
@Suite struct SyncAssetTests {
    static let threshold = 1024

    static func photoDevice(_ world: SyncWorld, _ name: String, scope: DatabaseScope) throws -> Device {
        try world.device(name) { configuration in
            configuration.entityTypes = SyncWorld.entityTypes + [Photo.self]
            configuration.assetThreshold = threshold
            configuration.databaseScope = scope
        }
    }

    static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    static func serverRecord(_ device: Device, _ name: String?, scope: DatabaseScope) async throws -> StratusClient.Record {
        let zone = scope == .public ? ZoneID.defaultZone : ZoneID(zoneName: device.sync.configuration.zoneName)
        return try await device.sync.configuration.container.database(with: scope).record(
            for: RecordID(recordName: try #require(name), zoneID: zone))
    }

    /// Runs on the private database, then on the public one.
    @Test(arguments: [false, true]) func overAndUnderTheThreshold(publicDatabase: Bool) async throws {
        let scope: DatabaseScope = publicDatabase ? .public : .private
        try await SyncWorld.run { world in
            let a = try Self.photoDevice(world, "a", scope: scope)
            let b = try Self.photoDevice(world, "b", scope: scope)
            let c = try Self.photoDevice(world, "c", scope: scope)
            for device in [a, b, c] { try await device.sync.sync() }
            let thumb = Self.bytes(200, seed: 1)
            let image = Self.bytes(5000, seed: 2)
            let photo = make(Photo.self, ["caption": "cat", "thumb": thumb, "image": image])
            a.store.insert(photo)
            try await a.cloud(photo).save()

            // Under the threshold inline (BYTES); over it an asset in `image_asset`, `image` left empty.
            var record = try await Self.serverRecord(a, photo.syncID, scope: scope)
            #expect(record["thumb"] == FieldValue.bytes(thumb))
            #expect(record["image"] as FieldValue? == nil)
            guard case .asset(let asset)? = record["image_asset"] as FieldValue? else {
                Issue.record("image did not travel as an asset: \(record)")
                return
            }
            #expect(asset.size == 5000)
            #expect(photo.image == image)

            // B gets the small field at once and the large one on demand.
            try await b.sync.sync()
            let onB = try #require(b.store.find(Photo.self, photo.syncID))
            #expect(onB.caption == "cat" && onB.thumb == thumb)
            #expect(onB.image == nil)
            #expect(try await b.sync.isAssetPending(for: onB, key: "image"))
            #expect(try await !b.sync.isAssetPending(for: onB, key: "thumb"))
            #expect(try await b.sync.downloadAsset(for: onB, key: "image") == image)
            #expect(onB.image == image)
            #expect(try await !b.sync.isAssetPending(for: onB, key: "image"))

            // A caption edit keeps the asset: B keeps the bytes it downloaded.
            photo["caption"] = "cat, asleep"
            try await a.cloud(photo).save()
            record = try await Self.serverRecord(a, photo.syncID, scope: scope)
            #expect(record["image_asset"] as FieldValue? == .asset(asset) || (record["image_asset"] as Asset?)?.fileChecksum == asset.fileChecksum)
            try await b.sync.sync()
            #expect(onB.caption == "cat, asleep" && onB.image == image)

            // C never downloads the image; its caption edit leaves the asset on the server.
            try await c.sync.sync()
            let onC = try #require(c.store.find(Photo.self, photo.syncID))
            #expect(onC.image == nil)
            onC["caption"] = "a cat"
            try await c.cloud(onC).save()
            record = try await Self.serverRecord(a, photo.syncID, scope: scope)
            #expect((record["image_asset"] as Asset?)?.fileChecksum == asset.fileChecksum)
            #expect(record["caption"] == FieldValue.string("a cat"))

            // A shrinks the image under the threshold: it travels inline and the asset field is cleared.
            let small = Self.bytes(300, seed: 3)
            photo["image"] = small
            try await a.cloud(photo).save()
            record = try await Self.serverRecord(a, photo.syncID, scope: scope)
            #expect(record["image"] == FieldValue.bytes(small))
            #expect(record["image_asset"] as FieldValue? == nil)
            try await b.sync.sync()
            #expect(onB.image == small && onB.caption == "a cat")
            #expect(try await !b.sync.isAssetPending(for: onB, key: "image"))

            // Large again, with new bytes: B's copy waits for a download of the new asset.
            let larger = Self.bytes(9000, seed: 4)
            photo["image"] = larger
            try await a.cloud(photo).save()
            try await b.sync.sync()
            #expect(onB.image == nil)
            #expect(try await b.sync.downloadAsset(for: onB, key: "image") == larger)
            #expect(try await a.sync.downloadAsset(for: photo, key: "image") == larger)  // A holds it: no download

            // C never downloaded the new asset; an empty `Data` clears it (it travels inline).
            try await c.sync.sync()
            #expect(try await c.sync.isAssetPending(for: onC, key: "image"))
            onC["image"] = Data()
            try await c.cloud(onC).save()
            record = try await Self.serverRecord(a, photo.syncID, scope: scope)
            #expect(record["image_asset"] as FieldValue? == nil)
            try await a.sync.sync()
            #expect(photo.image?.isEmpty == true)

            // Unknown keys are refused by name.
            await #expect(throws: SyncError.self) { try await b.sync.downloadAsset(for: onB, key: "nope") }
        }
    }

    /// With no threshold, every `Data` field stays inline.
    @Test func noThresholdKeepsDataInline() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a") { configuration in
                configuration.entityTypes = SyncWorld.entityTypes + [Photo.self]
                configuration.assetThreshold = nil
            }
            let image = Self.bytes(5000, seed: 9)
            let photo = make(Photo.self, ["image": image])
            a.store.insert(photo)
            try await a.cloud(photo).save()
            let record = try await Self.serverRecord(a, photo.syncID, scope: .private)
            #expect(record["image"] == FieldValue.bytes(image))
            #expect(record["image_asset"] as FieldValue? == nil)
        }
    }
}
