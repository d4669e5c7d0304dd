import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A live server that requires credentials, whose public database has a creator-only record
/// type, `Diary`, holding records of two users: the stage of the attacks on security roles.
///
/// | record | creator | title | rank |
/// |---|---|---|---|
/// | a-hidden-1 | A | swordfish-secret-1 | 1 |
/// | b-visible-1 | B | b-note-1 | 2 |
/// | a-hidden-2 | A | swordfish-secret-2 | 3 |
/// | b-visible-2 | B | b-note-2 | 4 |
/// | a-hidden-3 | A | swordfish-secret-3 | 5 |
///
/// A's records are hidden from B and from a caller with an API token alone.
struct PublicRoleWorld {
    let server: TestCloudKitServer
    /// The creator of the hidden records.
    let a: TestCloudKitServer.SignedInUser
    /// Another signed-in user, with records of their own.
    let b: TestCloudKitServer.SignedInUser

    /// An API token alone: the anonymous caller.
    var anonymous: [(String, String)] { [("ckAPIToken", a.apiToken)] }

    /// What A's records hold that nobody else may learn: names and the values of their fields.
    static let secrets = ["a-hidden-1", "a-hidden-2", "a-hidden-3", "swordfish-secret-1", "swordfish-secret-2", "swordfish-secret-3"]
    /// B's records in rank order.
    static let visible = ["b-visible-1", "b-visible-2"]

    static let schema = Data(
        #"""
        {"recordTypes": {
          "Diary": {"fields": {"title": {"type": "STRING", "queryable": true, "sortable": true, "searchable": true},
                               "rank": {"type": "INT64", "queryable": true, "sortable": true},
                               "photo": {"type": "ASSET"}},
                    "roles": {"authenticated": {"create": true}, "creator": {"read": true, "write": true}}}
        }}
        """#.utf8)

    /// Runs `body` against a fresh world on `backend`, stopping the server afterwards.
    static func with(_ backend: RecordStoreBackend, _ body: (PublicRoleWorld) async throws -> Void) async throws {
        let server = try await TestCloudKitServer.startAuthenticated(backend: backend)
        do {
            _ = try await server.store.importSchema(
                try SchemaDeployment.decode(schema), container: TestCloudKitServer.container, environment: .development
            )
            let world = PublicRoleWorld(
                server: server, a: try await server.signedInUser("a@example.com"), b: try await server.signedInUser("b@example.com")
            )
            for (rank, (name, title)) in [
                ("a-hidden-1", "swordfish-secret-1"), ("b-visible-1", "b-note-1"), ("a-hidden-2", "swordfish-secret-2"),
                ("b-visible-2", "b-note-2"), ("a-hidden-3", "swordfish-secret-3"),
            ].enumerated() {
                try await world.create(name, title: title, rank: rank + 1, as: name.hasPrefix("a") ? world.a : world.b)
            }
            try await body(world)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Creates a `Diary` in the public database.
    func create(_ name: String, title: String, rank: Int, as user: TestCloudKitServer.SignedInUser) async throws {
        let body =
            #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Diary","fields":{"title":{"value":"\#(title)"},"rank":{"value":\#(rank)}}}}]}"#
        let reply = try await server.exchange("records/modify", body, database: "public", query: user.query)
        #expect(reply.status == 200 && Self.codes(reply) == [nil], "\(reply.text)")
    }

    /// One `records/query` of `Diary` in the public database.
    ///
    /// - Parameters:
    ///   - filters: Filter dictionaries as JSON.
    ///   - sorts: Sort dictionaries as JSON.
    ///   - limit: `resultsLimit`, if any.
    ///   - marker: The continuation marker, if any.
    ///   - caller: The credentials.
    func query(
        filters: [String] = [], sorts: [String] = [], limit: Int? = nil, marker: String? = nil, as caller: [(String, String)]
    ) async throws -> TestCloudKitServer.Reply {
        var body = #"{"query":{"recordType":"Diary","filterBy":[\#(filters.joined(separator: ","))],"sortBy":[\#(sorts.joined(separator: ","))]}"#
        if let limit { body += #","resultsLimit":\#(limit)"# }
        if let marker { body += #","continuationMarker":"\#(marker)""# }
        return try await server.exchange("records/query", body + "}", database: "public", query: caller)
    }

    /// Every page of a query, following markers: the names on each page and every marker seen.
    func pages(
        filters: [String] = [], sorts: [String] = [], limit: Int, as caller: [(String, String)]
    ) async throws -> (pages: [[String]], markers: [String]) {
        var pages: [[String]] = []
        var markers: [String] = []
        var marker: String?
        repeat {
            let reply = try await query(filters: filters, sorts: sorts, limit: limit, marker: marker, as: caller)
            #expect(reply.status == 200, "\(reply.text)")
            pages.append(Self.names(reply))
            marker = reply.json["continuationMarker"]?.stringValue
            if let marker { markers.append(marker) }
        } while marker != nil && pages.count < 50
        return (pages, markers)
    }

    /// The `serverErrorCode` of each item of a `records` array; `nil` for items that succeeded.
    static func codes(_ reply: TestCloudKitServer.Reply) -> [String?] {
        reply.json["records"]?.arrayValue?.map { $0["serverErrorCode"]?.stringValue } ?? []
    }

    /// The record names of a `records` array.
    static func names(_ reply: TestCloudKitServer.Reply) -> [String] {
        reply.json["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []
    }

    /// The secrets readable in an opaque value (a marker or token): in its text, or in the bytes
    /// of the whole value or of any `.`-separated part decoded as base64url or base64.
    static func revealed(in token: String, secrets: [String] = secrets) -> [String] {
        var texts = [token]
        for part in [Substring(token)] + token.split(separator: ".") {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            if let data = Data(base64Encoded: base64) { texts.append(String(decoding: data, as: UTF8.self)) }
        }
        return secrets.filter { secret in texts.contains { $0.contains(secret) } }
    }

    /// Uploads `bytes` for `Diary.photo` in the public database as `user` and returns the asset with its receipt.
    func upload(_ bytes: Data, as user: TestCloudKitServer.SignedInUser) async throws -> Asset {
        try await server.uploadAsset(bytes, recordType: "Diary", fieldName: "photo", database: "public", query: user.query)
    }

    /// Saves `asset` as the photo of the public `Diary` named `name` (replacing it), as `user`.
    func attach(_ asset: Asset, to name: String, title: String, as user: TestCloudKitServer.SignedInUser) async throws -> TestCloudKitServer.Reply {
        let record = Record(recordName: name, recordType: "Diary", fields: ["photo": .asset(asset), "title": .string(title), "rank": .int64(9)])
        let body = String(decoding: try WireCoding.encode(RecordsModify.Request(operations: [.forceReplace(record)])), as: UTF8.self)
        return try await server.exchange("records/modify", body, database: "public", query: user.query)
    }

    /// The bytes behind the photo download URL of the public `Diary` named `name`, as `user` sees it; `nil` without one.
    func downloadPhoto(of name: String, as user: TestCloudKitServer.SignedInUser) async throws -> Data? {
        let reply = try await server.exchange("records/lookup", #"{"records":[{"recordName":"\#(name)"}]}"#, database: "public", query: user.query)
        guard let url = reply.json["records"]?[0]?["fields"]?["photo"]?["value"]?["downloadURL"]?.stringValue,
            let target = URL(string: url.replacingOccurrences(of: "${f}", with: "photo.jpg"))
        else { return nil }
        let (data, response) = try await URLSession.shared.data(from: target)
        return (response as? HTTPURLResponse)?.statusCode == 200 ? data : nil
    }
}
