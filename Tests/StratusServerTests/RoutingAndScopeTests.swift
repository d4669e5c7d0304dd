import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// URL, container, environment and database checks, and development/production separation.
@Suite struct RoutingAndScopeTests {
    static let backends = RecordStoreBackend.allCases

    /// A request to a container nobody created is a 404 that says how to create it.
    @Test(arguments: backends) func unknownContainerIsNotFound(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let (status, json) = try await server.postJSON("zones/list", "", container: "iCloud.com.example.Missing")
            #expect(status == 404)
            #expect(json.string("reason")?.contains("stratus container create iCloud.com.example.Missing") == true)
        }
    }

    /// A container identifier without `iCloud.` is refused with the rule the CLI applies: a 400
    /// `BAD_REQUEST` that names the identifier it probably meant, whether or not authentication is on.
    @Test(arguments: backends) func containerWithoutICloudPrefixIsABadRequestNamingTheFix(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let (status, json) = try await server.postJSON("zones/list", "", container: "com.example.Notes")
            #expect(status == 400)
            #expect(json.string("serverErrorCode") == "BAD_REQUEST")
            #expect(json.string("reason")?.contains("starts with 'iCloud.'") == true)
            #expect(json.string("reason")?.contains("did you mean 'iCloud.com.example.Notes'?") == true)
        }
        try await withAuthServer(backend: backend) { server in
            let reply = try await server.exchange("zones/list", body: Data("{}".utf8), container: "com.example.Notes")
            #expect(reply.status == 400)
            #expect(String(decoding: reply.body, as: UTF8.self).contains("did you mean 'iCloud.com.example.Notes'?"))
        }
        #expect(ContainerIdentifier.problem(with: "iCloud.com.example.Notes") == nil)
        #expect(ContainerIdentifier.problem(with: "iCloud.") != nil)
        #expect(ContainerIdentifier.problem(with: "iCloud.com/../x") != nil)
    }

    /// An unknown environment or database is a 400 naming it; an unknown operation is CloudKit's 404.
    @Test(arguments: backends) func unknownPathSegmentsAreExplained(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let environment = try await server.postJSON("zones/list", "", environment: "staging")
            #expect(environment.status == 400)
            #expect(environment.json.string("reason")?.contains("'staging'") == true)
            let database = try await server.postJSON("zones/list", "", database: "secret")
            #expect(database.status == 400)
            #expect(database.json.string("reason")?.contains("'secret'") == true)
            let operation = try await server.postJSON("records/teleport", "{}")
            #expect(operation.status == 404)
            #expect(operation.json.string("reason") == "could not find handler for endpoint")
        }
    }

    /// A POST-only operation refuses GET with 405.
    @Test(arguments: backends) func getOnAPostOnlyOperationIs405(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let reply = try await RawHTTPConnection.exchange(
                port: server.http.port,
                "GET /database/1/\(TestCloudKitServer.container)/development/private/records/modify HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            )
            #expect(reply.status == 405)
        }
    }

    /// The shared database is empty until sharing exists.
    @Test(arguments: backends) func sharedDatabaseHasNoZones(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let (status, json) = try await server.postJSON("records/lookup", #"{"records":[{"recordName":"x"}]}"#, database: "shared")
            #expect(status == 404)
            #expect(json.string("serverErrorCode") == "ZONE_NOT_FOUND")
        }
    }

    /// Development and production keep their data apart, and the private and public databases too.
    @Test(arguments: backends) func environmentsAndDatabasesKeepDataApart(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["v": .int64(1)])
            #expect(try await server.lookup(["n1"], environment: "production").first?.code == .notFound)
            let (_, data) = try await server.post("records/lookup", #"{"records":[{"recordName":"n1"}]}"#, database: "public")
            #expect(try WireCoding.decode(RecordsLookup.Response.self, from: data).records.first?.code == .notFound)
        }
    }

    /// The production schema is fixed: a save that needs a new type or field fails naming it.
    @Test(arguments: backends) func productionSchemaIsFixed(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let body =
                #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"p","fields":{"title":{"value":"x","type":"STRING"}}}}]}"#
            let (status, data) = try await server.post("records/modify", body, environment: "production")
            #expect(status == 200)
            let result = try WireCoding.decode(RecordsModify.Response.self, from: data).records.first
            #expect(result?.code == .badRequest)
            #expect(result?.error?.reason?.contains("'Note'") == true)
            #expect(result?.error?.reason?.contains("production") == true)
        }
    }

    /// The development schema grows just in time with each new type and field, without indexes.
    @Test(arguments: backends) func developmentSchemaGrowsJustInTime(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["title": .string("a")])
            try await server.create("n2", fields: ["title": .string("b"), "tags": .stringList(["x"])])
            let schema = try await server.store.read { try $0.schema(container: TestCloudKitServer.container, environment: .development) }
            #expect(schema.recordTypes["Note"]?.fields["title"] == FieldSchema(type: .string, queryable: false, sortable: false, searchable: false))
            #expect(schema.recordTypes["Note"]?.fields["tags"]?.type == .stringList)
        }
    }

    /// In development the first query that needs an index turns it on and finds the records saved before.
    @Test(arguments: backends) func developmentQueriesTurnOnTheIndexesTheyNeed(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["title": .string("oat milk"), "rank": .int64(2)])
            try await server.create("n2", fields: ["title": .string("dog food"), "rank": .int64(1)])
            let body =
                #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"title","comparator":"CONTAINS_ANY_TOKENS","fieldValue":{"value":"milk food"}},{"fieldName":"rank","comparator":"GREATER_THAN","fieldValue":{"value":0}}],"sortBy":[{"fieldName":"rank"}]}}"#
            let (status, data) = try await server.post("records/query", body)
            #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
            let names = try WireCoding.decode(RecordsQuery.Response.self, from: data).records.compactMap(\.record?.recordName)
            #expect(names == ["n2", "n1"])
            let schema = try await server.store.read { try $0.schema(container: TestCloudKitServer.container, environment: .development) }
            #expect(schema.recordTypes["Note"]?.fields["title"]?.searchable == true)
            #expect(schema.recordTypes["Note"]?.fields["rank"]?.queryable == true)
            #expect(schema.recordTypes["Note"]?.fields["rank"]?.sortable == true)
            // Production never grows indexes on demand.
            let (productionStatus, _) = try await server.post("records/query", body, environment: "production")
            #expect(productionStatus == 400)
        }
    }
}
