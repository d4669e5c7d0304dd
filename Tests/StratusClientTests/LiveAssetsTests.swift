import Foundation
import StratusClient
import StratusTesting
import StratusWire
import Testing

/// Assets against the real server on loopback: upload on save, download on demand.
@Suite struct LiveAssetsTests {
    /// A file saved as an asset comes back with a download URL whose bytes are the file's.
    @Test func assetUploadsOnSaveAndDownloadsOnDemand() async throws {
        try await SignedInFixture.run { fixture in
            let db = fixture.device().privateCloudDatabase
            let directory = try TemporaryDirectory(prefix: "sdk-assets")
            let file = directory.url.appendingPathComponent("cat.bin")
            let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try bytes.write(to: file)

            var photo = Record(recordType: "Photo", recordID: RecordID(recordName: "p1"))
            photo["image"] = Asset(fileURL: file)
            #expect(photo.value(forKey: "image", as: Asset.self)?.localFileURL == file)
            let saved = try await db.save(photo)
            let savedAsset = try #require(saved.value(forKey: "image", as: Asset.self))
            #expect(savedAsset.localFileURL == nil)
            #expect(savedAsset.size == Int64(bytes.count))

            let fetched = try await db.record(for: photo.recordID)
            let asset = try #require(fetched.value(forKey: "image", as: Asset.self))
            #expect(asset.downloadURL?.contains("${f}") == true)
            #expect(asset.resolvedDownloadURL(fileName: "cat.bin")?.absoluteString.contains("${f}") == false)
            #expect(try await asset.data() == bytes)
            let downloaded = try await asset.fileURL(in: directory.url)
            #expect(try Data(contentsOf: downloaded) == bytes)
        }
    }

    /// Every element of an asset list is uploaded, in order.
    @Test func assetListElementsUpload() async throws {
        try await SignedInFixture.run { fixture in
            let db = fixture.device().privateCloudDatabase
            let directory = try TemporaryDirectory(prefix: "sdk-assets")
            var files: [URL] = []
            for index in 0..<3 {
                let file = directory.url.appendingPathComponent("f\(index)")
                try Data("file \(index)".utf8).write(to: file)
                files.append(file)
            }
            var album = Record(recordType: "Album", recordID: RecordID(recordName: "a1"))
            album["pages"] = files.map { Asset(fileURL: $0) }
            try await db.save(album)
            let fetched = try await db.record(for: album.recordID)
            guard case .assetList(let assets)? = fetched["pages"] else { throw StratusError(.serverResponseLost, "no asset list") }
            #expect(assets.count == 3)
            for (index, asset) in assets.enumerated() {
                #expect(try await asset.data() == Data("file \(index)".utf8))
            }
        }
    }

    /// A missing file fails the save with invalidArguments before anything is sent.
    @Test func missingFileFailsTheSave() async throws {
        try await SignedInFixture.run { fixture in
            let db = fixture.device().privateCloudDatabase
            var photo = Record(recordType: "Photo", recordID: RecordID(recordName: "p2"))
            photo["image"] = Asset(fileURL: URL(fileURLWithPath: "/nonexistent/stratus-\(UUID().uuidString)"))
            let error = try await #require(throws: StratusError.self) { try await db.save(photo) }
            #expect(error.code == .invalidArguments)
        }
    }
}
