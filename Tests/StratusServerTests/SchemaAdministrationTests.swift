import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// `stratus schema export|import|deploy` through the store, and what a running server does with the result.
@Suite struct SchemaAdministrationTests {
    static let container = TestCloudKitServer.container

    static let note = Schema(recordTypes: [
        "Note": RecordTypeSchema(fields: ["title": FieldSchema(type: .string, queryable: true, sortable: true, searchable: true)])
    ])

    private func schemaError(_ body: () async throws -> Void) async -> SchemaError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? SchemaError
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func unknownContainerIsRefusedByEveryCommand(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { server, _ in
            let store = server.store
            for error in [
                await schemaError { _ = try await store.exportSchema(container: "iCloud.nope", environment: .development) },
                await schemaError { _ = try await store.importSchema(Self.note, container: "iCloud.nope", environment: .development) },
                await schemaError { _ = try await store.deploySchema(container: "iCloud.nope") },
            ] {
                #expect(error?.code == .containerNotFound)
                #expect(error?.message.contains("container 'iCloud.nope' does not exist") == true)
            }
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func importReplacesTheSchemaAndExportReadsIt(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { server, _ in
            #expect(try await server.store.exportSchema(container: Self.container, environment: .development) == Schema())

            let plan = try await server.store.importSchema(Self.note, container: Self.container, environment: .development)
            #expect(plan.changes.map(\.description) == ["+ record type Note", "+ field Note.title STRING (queryable, sortable, searchable)"])
            #expect(try await server.store.exportSchema(container: Self.container, environment: .development) == Self.note)
            #expect(try await server.store.exportSchema(container: Self.container, environment: .production) == Schema())

            let again = try await server.store.importSchema(Self.note, container: Self.container, environment: .development)
            #expect(again.isEmpty)
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func refusedImportWritesNothing(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { server, _ in
            _ = try await server.store.importSchema(Self.note, container: Self.container, environment: .production)
            var retyped = Self.note
            retyped.recordTypes["Note"]?.fields["title"] = FieldSchema(type: .bytes)
            retyped.recordTypes["Tag"] = RecordTypeSchema()
            let error = await schemaError {
                _ = try await server.store.importSchema(retyped, container: Self.container, environment: .production)
            }
            #expect(error?.code == .incompatibleChange)
            #expect(error?.message.contains("field 'title' of record type 'Note' is STRING in the production schema; it cannot become BYTES") == true)
            #expect(try await server.store.exportSchema(container: Self.container, environment: .production) == Self.note)
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func importValidatesTheSchema(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { server, _ in
            let invalid = Schema(recordTypes: ["Note": RecordTypeSchema(fields: ["n": FieldSchema(type: .int64, searchable: true)])])
            let error = await schemaError {
                _ = try await server.store.importSchema(invalid, container: Self.container, environment: .development)
            }
            #expect(error?.code == .invalidSchema)
            #expect(error?.field == "n")
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func deployCopiesTheJustInTimeDevelopmentSchemaToProduction(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { server, client in
            let saved = try await client.modify([WireJSON.create("n1", fields: #"{"title":{"value":"Hi"},"due":{"value":1750000000000,"type":"TIMESTAMP"}}"#)])
            #expect(saved.first?.asRecord != nil)

            let plan = try await server.store.deploySchema(container: Self.container)
            #expect(
                plan.changes.map(\.description) == [
                    "+ record type Note", "+ field Note.due TIMESTAMP (no indexes)", "+ field Note.title STRING (no indexes)",
                ])
            let development = try await server.store.exportSchema(container: Self.container, environment: .development)
            #expect(try await server.store.exportSchema(container: Self.container, environment: .production) == development)
            #expect(try await server.store.deploySchema(container: Self.container).isEmpty)
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func deployRefusesToDropWhatProductionHas(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { server, _ in
            var production = Self.note
            production.recordTypes["Note"]?.fields["legacy"] = FieldSchema(type: .int64)
            _ = try await server.store.importSchema(production, container: Self.container, environment: .production)
            _ = try await server.store.importSchema(Self.note, container: Self.container, environment: .development)

            let error = await schemaError { _ = try await server.store.deploySchema(container: Self.container) }
            #expect(error?.code == .incompatibleChange)
            #expect(error?.field == "legacy")
            #expect(error?.message.contains("field 'legacy' of record type 'Note' is in the production schema but not in the new schema") == true)
            #expect(try await server.store.exportSchema(container: Self.container, environment: .production) == production)
        }
    }

    /// After a deploy, production accepts records within the schema and refuses new fields or types by name.
    @Test(arguments: RecordStoreBackend.allCases)
    func productionSchemaIsFixedAfterDeploy(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { server, client in
            _ = try await client.modify([WireJSON.create("dev", fields: #"{"title":{"value":"draft"}}"#)])
            _ = try await server.store.deploySchema(container: Self.container)

            let results = try await client.modify(
                [
                    WireJSON.create("ok", fields: #"{"title":{"value":"fits"}}"#),
                    WireJSON.create("extra", fields: #"{"title":{"value":"x"},"color":{"value":"red"}}"#),
                    WireJSON.create("alien", type: "Tag", fields: #"{"name":{"value":"x"}}"#),
                ],
                environment: "production"
            )
            #expect(results.first?.asRecord?.fields?["title"] == .string("fits"))
            let extra = try #require(results[1].asError)
            #expect(extra.serverErrorCode == .badRequest)
            #expect(extra.reason?.contains("field 'color' does not exist on record type 'Note' in the production schema") == true)
            let alien = try #require(results[2].asError)
            #expect(alien.serverErrorCode == .badRequest)
            #expect(alien.reason?.contains("record type 'Tag' does not exist in the production schema") == true)
            #expect(try await server.store.exportSchema(container: Self.container, environment: .production).recordTypes.keys.sorted() == ["Note"])
        }
    }

    /// A schema deployed while the server runs is enforced at once, and the server's cached copy
    /// (used for untagged values) catches up with the next `records/modify`.
    @Test(arguments: RecordStoreBackend.allCases)
    func runningServerPicksUpADeployedSchema(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { server, client in
            let before = try await client.modify([WireJSON.create("early", fields: #"{"title":{"value":"x"}}"#)], environment: "production")
            #expect(before.first?.asError?.serverErrorCode == .badRequest, "production starts empty, and the server caches that")

            var schema = Self.note
            schema.recordTypes["Note"]?.fields["due"] = FieldSchema(type: .timestamp)
            _ = try await server.store.importSchema(schema, container: Self.container, environment: .development)
            _ = try await server.store.deploySchema(container: Self.container)

            let tagged = try await client.modify(
                [WireJSON.create("first", fields: #"{"title":{"value":"x"},"due":{"value":1750000000000,"type":"TIMESTAMP"}}"#)], environment: "production"
            )
            #expect(tagged.first?.asRecord != nil, "writes check the stored schema, not the cache")
            let untagged = try await client.modify([WireJSON.create("second", fields: #"{"due":{"value":1750000000000}}"#)], environment: "production")
            #expect(untagged.first?.asRecord?.fields?["due"]?.type == .timestamp, "the untagged value is read with the deployed schema")
        }
    }
}
