import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 2, the write path: for a record type that other users may change but not read (a
    /// drop box), a write's answer must show nothing of a record the writer cannot read — no
    /// `serverRecord` in `EXISTS` or `CONFLICT`, no merged fields echoed by a `forceUpdate`.
    @Suite("02 public-database security roles: the write path") struct PublicRoleWriteAttacks {
        static let schema = Data(
            #"""
            {"recordTypes": {"Dropbox": {"fields": {"secret": {"type": "STRING"}, "note": {"type": "STRING"}},
                                          "roles": {"authenticated": {"create": true, "write": true}, "creator": {"read": true, "write": true}}}}}
            """#.utf8)

        static func operation(_ type: String, _ fields: String, tag: String? = nil) -> String {
            let tagKey = tag.map { #","recordChangeTag":"\#($0)""# } ?? ""
            return #"{"operations":[{"operationType":"\#(type)","record":{"recordName":"drop-1","recordType":"Dropbox"\#(tagKey),"fields":{\#(fields)}}}]}"#
        }

        @Test(arguments: RecordStoreBackend.allCases) func writesToARecordTheWriterCannotReadShowNothingOfIt(_ backend: RecordStoreBackend) async throws {
            try await withAuthServer(backend: backend) { server in
                _ = try await server.store.importSchema(
                    try SchemaDeployment.decode(Self.schema), container: TestCloudKitServer.container, environment: .development)
                let a = try await server.signedInUser("a@example.com")
                let b = try await server.signedInUser("b@example.com")
                let created = try await server.exchange(
                    "records/modify", Self.operation("create", #""secret":{"value":"swordfish"}"#), database: "public", query: a.query)
                #expect(created.itemCodes() == [nil], "\(created.text)")

                let attempts = [
                    ("a create of a taken name", Self.operation("create", #""note":{"value":"hi"}"#), "EXISTS"),
                    ("an update with a stale tag", Self.operation("update", #""note":{"value":"hi"}"#, tag: "zzzz"), "CONFLICT"),
                    (
                        "a delete with a stale tag", #"{"operations":[{"operationType":"delete","record":{"recordName":"drop-1","recordChangeTag":"zzzz"}}]}"#,
                        "CONFLICT"
                    ),
                    ("a merging forceUpdate", Self.operation("forceUpdate", #""note":{"value":"from B"}"#), nil),
                ]
                for (what, body, code) in attempts {
                    let reply = try await server.exchange("records/modify", body, database: "public", query: b.query)
                    #expect(reply.itemCodes() == [code], "\(what): \(reply.text)")
                    #expect(!reply.text.contains("swordfish"), "\(what) showed the hidden field: \(reply.text)")
                    #expect(!reply.text.contains("serverRecord"), "\(what) carried the hidden record: \(reply.text)")
                }
                // The creator still gets the server's record to merge with.
                let own = try await server.exchange(
                    "records/modify", Self.operation("update", #""note":{"value":"mine"}"#, tag: "zzzz"), database: "public", query: a.query)
                #expect(own.itemCodes() == ["CONFLICT"])
                #expect(own.text.contains("serverRecord") && own.text.contains("swordfish"), "\(own.text)")
            }
        }
    }
}
