import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Security roles per record type in the public database: world, authenticated and creator × read, create, write.
@Suite struct SecurityRolesTests {
    static let document = Data(
        #"""
        {"recordTypes": {
          "Post": {"fields": {"title": {"type": "STRING", "queryable": true}}},
          "Diary": {"fields": {"title": {"type": "STRING", "queryable": true}},
                    "roles": {"authenticated": {"create": true}, "creator": {"read": true, "write": true}}},
          "Wiki": {"fields": {"title": {"type": "STRING"}},
                   "roles": {"world": {"read": true}, "authenticated": {"read": true, "create": true, "write": true}}},
          "Notice": {"fields": {"title": {"type": "STRING"}}, "roles": {"world": {"read": true}}}
        }}
        """#.utf8)

    static func create(_ name: String, type: String) -> String {
        #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"\#(type)","fields":{"title":{"value":"\#(name)"}}}}]}"#
    }

    static func update(_ name: String, type: String) -> String {
        #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"\#(name)","recordType":"\#(type)","fields":{"title":{"value":"changed"}}}}]}"#
    }

    @Test func rolesDecideWhoReadsCreatesAndWritesPublicRecords() async throws {
        try await withAuthServer { server in
            let schema = try SchemaDeployment.decode(Self.document)
            #expect(schema.recordTypes["Diary"]?.roles?.creator.read == true)
            #expect(schema.recordTypes["Post"]?.roles == nil)
            let plan = try await server.store.importSchema(schema, container: TestCloudKitServer.container, environment: .development)
            #expect(plan.changes.contains { $0.description.hasPrefix("~ record type Diary roles") })
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            let anonymous = [("ckAPIToken", a.apiToken)]

            // Creating: Notice allows no user to create.
            #expect(try await server.exchange("records/modify", Self.create("d1", type: "Diary"), database: "public", query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("records/modify", Self.create("w1", type: "Wiki"), database: "public", query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("records/modify", Self.create("p1", type: "Post"), database: "public", query: a.query).itemCodes() == [nil])
            #expect(
                try await server.exchange("records/modify", Self.create("n1", type: "Notice"), database: "public", query: a.query).itemCodes() == [
                    "ACCESS_DENIED"
                ])

            // Reading: a Diary is its creator's only.
            let names = #"{"records":[{"recordName":"d1"},{"recordName":"w1"},{"recordName":"p1"}]}"#
            #expect(try await server.exchange("records/lookup", names, database: "public", query: a.query).itemCodes() == [nil, nil, nil])
            // A record the caller may not read is answered as a missing one (Attack02PublicRoleQueryTests compares the bodies).
            #expect(try await server.exchange("records/lookup", names, database: "public", query: b.query).itemCodes() == ["NOT_FOUND", nil, nil])
            #expect(try await server.exchange("records/lookup", names, database: "public", query: anonymous).itemCodes() == ["NOT_FOUND", nil, nil])
            let diaryQuery = #"{"query":{"recordType":"Diary"}}"#
            #expect(try await server.exchange("records/query", diaryQuery, database: "public", query: a.query).strings("records", "recordName") == ["d1"])
            #expect(try await server.exchange("records/query", diaryQuery, database: "public", query: b.query).strings("records", "recordName").isEmpty)

            // Writing: any signed-in user may change a Wiki; a Post (default roles) only its creator.
            #expect(try await server.exchange("records/modify", Self.update("w1", type: "Wiki"), database: "public", query: b.query).itemCodes() == [nil])
            #expect(
                try await server.exchange("records/modify", Self.update("p1", type: "Post"), database: "public", query: b.query).itemCodes() == [
                    "ACCESS_DENIED"
                ])
            #expect(
                try await server.exchange("records/modify", Self.update("d1", type: "Diary"), database: "public", query: b.query).itemCodes() == [
                    "ACCESS_DENIED"
                ])
            #expect(try await server.exchange("records/modify", Self.update("d1", type: "Diary"), database: "public", query: a.query).itemCodes() == [nil])
        }
    }

    @Test func badRolesAreRefusedByTheSchemaDocumentReader() throws {
        let wrongKey = Data(#"{"recordTypes":{"Post":{"fields":{},"roles":{"everyone":{"read":true}}}}}"#.utf8)
        #expect(throws: SchemaError.self) { try SchemaDeployment.decode(wrongKey) }
        let wrongFlag = Data(#"{"recordTypes":{"Post":{"fields":{},"roles":{"world":{"read":"yes"}}}}}"#.utf8)
        #expect(throws: SchemaError.self) { try SchemaDeployment.decode(wrongFlag) }
    }
}
