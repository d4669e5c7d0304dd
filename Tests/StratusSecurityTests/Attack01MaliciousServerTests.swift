import Foundation
import StratusClient
import StratusKeyValue
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 1, beyond paths: other values a malicious server (or another client of the account)
    /// controls must not make the client read local files, fail every sync, or crash.
    @Suite("01 malicious server: assets and key-value records", .serialized)
    struct MaliciousServerAttacks {
        /// An asset whose download URL is a `file:` URL is not a local file to upload: re-saving a
        /// fetched record never sends a file of the user's to the server, and `data()` never reads one.
        @Test func anAssetPointingAtALocalFileIsNeverReadNorUploaded() async throws {
            try await HostileDocumentsFixture.run { fixture in
                let secret = fixture.outside.appendingPathComponent("id_ed25519")
                try FileManager.default.createDirectory(at: fixture.outside, withIntermediateDirectories: true)
                let secretBytes = Data("-----BEGIN OPENSSH PRIVATE KEY----- do not upload".utf8)
                try secretBytes.write(to: secret)
                let honest = fixture.container().privateCloudDatabase
                let picture = fixture.sandbox.url.appendingPathComponent("cat.jpg")
                try Data("a cat".utf8).write(to: picture)
                var photo = StratusClient.Record(recordType: "Photo", recordID: RecordID(recordName: "p1"))
                photo["image"] = Asset(fileURL: picture)
                photo["title"] = "cat"
                _ = try await honest.save(photo)

                let hostile = HostileResponseTransport(rewriting: [
                    "/records/lookup": HostileResponseTransport.replacingAssets(withDownloadURL: secret.absoluteString)
                ])
                let victim = fixture.container(transport: hostile).privateCloudDatabase
                var fetched = try await victim.record(for: RecordID(recordName: "p1"))
                let asset = try #require(fetched.value(forKey: "image", as: Asset.self))
                #expect(asset.localFileURL == nil, "an asset from the network is never a local file")
                let read = await failure { _ = try await asset.data() }
                #expect(read != nil, "data() does not read the local file a server names")

                fetched["title"] = "renamed"
                _ = try? await victim.save(fetched)
                _ = try? await victim.modifyRecords(saving: [fetched], deleting: [], savePolicy: .allKeys, atomically: false)
                #expect(!hostile.sentBodies.contains { $0.range(of: secretBytes) != nil }, "the user's file was sent to the server")
            }
        }

        /// A key-value record whose value does not decode (or nests absurdly deep) is skipped with a
        /// warning: the other keys still arrive and the sync succeeds, so it is not stuck.
        @Test func anUndecodableKeyValueRecordDoesNotStopTheSync() async throws {
            try await HostileDocumentsFixture.run { fixture in
                let attacker = fixture.container().privateCloudDatabase
                _ = try await attacker.save(RecordZone(zoneID: KeyValueStore.zoneID))
                let deep = String(repeating: #"{"a":["#, count: 30_000) + String(repeating: "]}", count: 30_000)
                var records: [StratusClient.Record] = []
                for (key, bytes) in [("garbage", Data("not json".utf8)), ("deep", Data(deep.utf8)), ("good", Data(#"{"s":"hello"}"#.utf8))] {
                    var record = StratusClient.Record(
                        recordType: KeyValueStore.recordType, recordID: RecordID(recordName: key, zoneID: KeyValueStore.zoneID))
                    record[KeyValueStore.valueField] = bytes
                    records.append(record)
                }
                let results = try await attacker.modifyRecords(saving: records, deleting: [], atomically: false)
                #expect(results.saveResults.values.allSatisfy { (try? $0.get()) != nil })

                var configuration = KeyValueStore.Configuration()
                configuration.syncsAutomatically = false
                configuration.observesPushes = false
                let store = try KeyValueStore(
                    container: fixture.container(), databaseURL: fixture.sandbox.url.appendingPathComponent("kv.sqlite"),
                    configuration: configuration)
                let error = await failure { try await store.synchronizeNow() }
                #expect(error == nil, "\(String(describing: error))")
                #expect(store.string(forKey: "good") == "hello")
                #expect(store.object(forKey: "garbage") == nil && store.object(forKey: "deep") == nil)
                try await attacker.save(
                    {
                        var later = StratusClient.Record(
                            recordType: KeyValueStore.recordType, recordID: RecordID(recordName: "later", zoneID: KeyValueStore.zoneID))
                        later[KeyValueStore.valueField] = Data(#"{"i":7}"#.utf8)
                        return later
                    }())
                #expect(await failure { try await store.synchronizeNow() } == nil)
                #expect(store.int64(forKey: "later") == 7, "the next sync is not stuck on the bad records")
                store.close()
            }
        }
    }
}
