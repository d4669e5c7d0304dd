@testable import StratusServer
import StratusWire
import Testing

@Suite struct SchemaCacheTests {
    static let older = Schema(recordTypes: ["Note": RecordTypeSchema()])
    static let newer = Schema(recordTypes: ["Note": RecordTypeSchema(fields: ["title": .justInTime(.string)])])

    private func cached(_ cache: SchemaCache) async throws -> Schema {
        try await cache.schema(container: "c", environment: .development) {
            Issue.record("the cache should not load")
            return Schema()
        }
    }

    @Test func replacementWithAnOlderTicketIsDropped() async throws {
        let cache = SchemaCache()
        let first = cache.ticket()
        let second = cache.ticket()
        cache.replace(Self.newer, container: "c", environment: .development, ticket: second)
        cache.replace(Self.older, container: "c", environment: .development, ticket: first)
        #expect(try await cached(cache) == Self.newer)
    }

    @Test func replacementWithALaterTicketWins() async throws {
        let cache = SchemaCache()
        cache.replace(Self.older, container: "c", environment: .development, ticket: cache.ticket())
        cache.replace(Self.newer, container: "c", environment: .development, ticket: cache.ticket())
        #expect(try await cached(cache) == Self.newer)
    }

    @Test func loadDoesNotOverwriteAWritersSchema() async throws {
        let cache = SchemaCache()
        let loaded = try await cache.schema(container: "c", environment: .production) {
            cache.replace(Self.newer, container: "c", environment: .production, ticket: cache.ticket())
            return Self.older
        }
        #expect(loaded == Self.newer)
        #expect(try await cache.schema(container: "c", environment: .production) { Schema() } == Self.newer)
    }
}
