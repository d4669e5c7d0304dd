import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Another user can neither reach a private asset's bytes nor borrow its upload receipt.
@Suite struct AssetIsolationTests {
    /// Uploads `bytes` for `Photo.image` as `user` and returns the `singleFile` asset (with its receipt).
    static func upload(_ bytes: Data, as user: TestCloudKitServer.SignedInUser, on server: TestCloudKitServer) async throws -> Asset {
        try await server.uploadAsset(bytes, recordType: "Photo", fieldName: "image", query: user.query)
    }

    static func saveBody(_ asset: Asset, name: String) throws -> String {
        let operation = RecordOperation.create(Record(recordName: name, recordType: "Photo", fields: ["image": .asset(asset)]))
        return String(decoding: try WireCoding.encode(RecordsModify.Request(operations: [operation])), as: UTF8.self)
    }

    @Test func anotherUserCannotReachOrBorrowAPrivateAsset() async throws {
        try await withAuthServer { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            let bytes = Data("A's private photo".utf8)
            let asset = try await Self.upload(bytes, as: a, on: server)
            #expect(try await server.exchange("records/modify", try Self.saveBody(asset, name: "photo"), query: a.query).itemCodes() == [nil])

            // A gets a download URL that serves the bytes.
            let mine = try await server.exchange("records/lookup", #"{"records":[{"recordName":"photo"}]}"#, query: a.query)
            let url = try #require(mine.json["records"]?[0]?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
            let (downloaded, _) = try await URLSession.shared.data(from: try #require(URL(string: url.replacingOccurrences(of: "${f}", with: "p.jpg"))))
            #expect(downloaded == bytes)

            // B finds no record, so no download URL, and cannot have the server mint a receipt for it.
            #expect(try await server.exchange("records/lookup", #"{"records":[{"recordName":"photo"}]}"#, query: b.query).itemCodes() == ["NOT_FOUND"])
            let rereference = try await server.exchange("assets/rereference", #"{"assets":[{"recordName":"photo","fieldName":"image"}]}"#, query: b.query)
            #expect(rereference.status != 200)
            #expect(!rereference.text.contains("receipt"))

            // B cannot attach A's asset with A's receipt, nor by its checksum alone.
            let borrowed = try await server.exchange("records/modify", try Self.saveBody(asset, name: "stolen"), query: b.query)
            #expect(borrowed.itemCodes() != [nil], "\(borrowed.text)")
            var bare = asset
            bare.receipt = nil
            let guessed = try await server.exchange("records/modify", try Self.saveBody(bare, name: "guessed"), query: b.query)
            #expect(guessed.itemCodes() != [nil], "\(guessed.text)")
        }
    }
}
