import Foundation
import StratusServer
@testable import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 13: an anonymous caller's query with two sorts or a distance sort made PostgreSQL
    /// read every record of the type on every page. Orders are now computed in SQL (keyset
    /// continuation on every key, distances in SQL), and what must be checked in memory is capped
    /// by `ServiceLimits.maximumQueryCandidates`.
    @Suite("13 unbounded query work") struct UnboundedQueryAttacks {
        static let count = 3000
        static let limit = 10
        static let candidateLimit = 500
        static let paris = Location(latitude: 48.8566, longitude: 2.3522)

        /// One seeded record.
        struct Place {
            var name: String
            var category: String
            var rank: Int64
            var spot: Location

            var distance: Double {
                GeoDistance.meters(latitude1: spot.latitude, longitude1: spot.longitude, latitude2: paris.latitude, longitude2: paris.longitude)
            }
        }

        /// 3,000 places: three common categories and a rare one (every 100th), unique ranks, a grid of points.
        static let places: [Place] = (0..<count).map(place)

        static func place(_ index: Int) -> Place {
            let categories = ["alpha", "beta", "gamma"]
            let category = index % 100 == 0 ? "rare" : categories[index % 3]
            let latitude = 40 + Double(index / 60) * 0.1
            let longitude = -5 + Double(index % 60) * 0.1
            return Place(
                name: String(format: "p%04d", index), category: category, rank: Int64(index * 7919 % count),
                spot: Location(latitude: latitude, longitude: longitude)
            )
        }

        static let schema = Data(
            #"""
            {"recordTypes": {"Place": {"fields": {
              "category": {"type": "STRING", "queryable": true, "sortable": true},
              "rank": {"type": "INT64", "queryable": true, "sortable": true},
              "spot": {"type": "LOCATION", "queryable": true, "sortable": true},
              "code": {"type": "BYTES", "queryable": true, "sortable": true}}}}}
            """#.utf8)

        /// A server with the places in its public database, queried with an API token alone.
        struct World {
            let server: TestCloudKitServer
            let anonymous: [(String, String)]

            /// Candidate rows this store's queries read so far; `nil` on a back end that keeps no count.
            var rowsRead: Int? { (server.store as? PostgresRecordStore)?.queryStatistics.rowsRead }

            /// One page, and the rows the store read for it (`nil` where not counted).
            func page(_ query: String, marker: String? = nil) async throws -> (reply: TestCloudKitServer.Reply, rows: Int?) {
                let before = rowsRead
                var body = #"{"query":\#(query),"resultsLimit":\#(UnboundedQueryAttacks.limit)"#
                if let marker { body += #","continuationMarker":"\#(marker)""# }
                let reply = try await server.exchange("records/query", body + "}", database: "public", query: anonymous)
                return (reply, rowsRead.flatMap { after in before.map { after - $0 } })
            }
        }

        static func with(_ backend: RecordStoreBackend, _ body: (World) async throws -> Void) async throws {
            let server = try await TestCloudKitServer.startAuthenticated(backend: backend) { configuration in
                configuration.limits.maximumQueryCandidates = candidateLimit
            }
            do {
                _ = try await server.store.importSchema(try SchemaDeployment.decode(schema), container: TestCloudKitServer.container, environment: .development)
                let writer = try await server.signedInUser("writer@example.com")
                for start in stride(from: 0, to: count, by: 200) {
                    let operations = places[start..<min(start + 200, count)].map { place in
                        RecordOperation.create(
                            Record(
                                recordName: place.name, recordType: "Place",
                                fields: [
                                    "category": .string(place.category), "rank": .int64(place.rank), "spot": .location(place.spot),
                                    "code": .bytes(Data([UInt8(place.rank >> 8), UInt8(place.rank & 0xff)])),
                                ]
                            )
                        )
                    }
                    let request = String(decoding: try WireCoding.encode(RecordsModify.Request(operations: operations)), as: UTF8.self)
                    let reply = try await server.exchange("records/modify", request, database: "public", query: writer.query)
                    #expect(reply.status == 200 && !reply.text.contains("serverErrorCode"), "\(reply.text.prefix(300))")
                }
                let world = World(server: server, anonymous: [("ckAPIToken", writer.apiToken)])
                #expect((world.rowsRead != nil) == (backend == .postgres), "PostgreSQL counts the rows its queries read")
                try await body(world)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }

        static func names(_ reply: TestCloudKitServer.Reply) -> [String] {
            reply.json["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []
        }

        /// Three pages of `query`: each must be in `expected` order, and read at most `bound` rows (where counted).
        static func expectPages(_ world: World, _ query: String, expected: [String], bound: Int, _ label: String) async throws {
            var marker: String?
            for page in 0..<3 {
                let (reply, rows) = try await world.page(query, marker: marker)
                #expect(reply.status == 200, "\(label): \(reply.text.prefix(300))")
                #expect(names(reply) == Array(expected[(page * limit)..<((page + 1) * limit)]), "\(label), page \(page)")
                if let rows { #expect(rows <= bound, "\(label), page \(page): read \(rows) rows for \(limit) records") }
                marker = reply.json["continuationMarker"]?.stringValue
                #expect(marker != nil)
            }
        }

        /// Two sorts, and a distance sort with and without `NEAR`: a page reads about a page of rows.
        @Test(arguments: RecordStoreBackend.allCases)
        func twoSortAndDistanceQueriesReadAboutOnePagePerPage(backend: RecordStoreBackend) async throws {
            try await Self.with(backend) { world in
                let twoSorts = #"{"recordType":"Place","sortBy":[{"fieldName":"category"},{"fieldName":"rank","ascending":false}]}"#
                let byCategoryThenRank = Self.places.sorted { ($0.category, -$0.rank) < ($1.category, -$1.rank) }.map(\.name)
                try await Self.expectPages(world, twoSorts, expected: byCategoryThenRank, bound: Self.limit + 1, "two sorts")

                let systemAndField = #"{"recordType":"Place","sortBy":[{"systemFieldName":"recordName","ascending":false},{"fieldName":"rank"}]}"#
                try await Self.expectPages(world, systemAndField, expected: Self.places.map(\.name).reversed(), bound: Self.limit + 1, "name and rank")

                let distance = #"{"recordType":"Place","sortBy":[{"fieldName":"spot","relativeLocation":{"value":{"latitude":48.8566,"longitude":2.3522}}}]}"#
                let nearest = Self.places.sorted { $0.distance < $1.distance }.map(\.name)
                try await Self.expectPages(world, distance, expected: nearest, bound: Self.limit + 1, "distance")

                let near = #"""
                    {"recordType":"Place","filterBy":[{"fieldName":"spot","comparator":"NEAR","fieldValue":{"value":{"latitude":48.8566,"longitude":2.3522}},"distance":600000}],
                     "sortBy":[{"fieldName":"spot","relativeLocation":{"value":{"latitude":48.8566,"longitude":2.3522}}},{"fieldName":"rank"}]}
                    """#
                let within = Self.places.filter { $0.distance <= 600_000 }.sorted { $0.distance < $1.distance }.map(\.name)
                #expect(within.count > 3 * Self.limit && within.count < Self.count / 2)
                try await Self.expectPages(world, near, expected: within, bound: Self.limit + 1, "distance with NEAR")
            }
        }

        /// A filter only the exact check applies (on PostgreSQL: a negation) keeps few records: each page
        /// reads at most the candidate limit, ends early with a marker when it is spent, and paging
        /// still returns every match once, in order.
        @Test(arguments: RecordStoreBackend.allCases)
        func pagesThroughFiltersCheckedInMemoryReadAtMostTheCandidateLimit(backend: RecordStoreBackend) async throws {
            try await Self.with(backend) { world in
                let query = #"""
                    {"recordType":"Place","filterBy":[{"fieldName":"category","comparator":"NOT_IN","fieldValue":{"value":["alpha","beta","gamma"]}}],
                     "sortBy":[{"fieldName":"category"},{"fieldName":"rank"}]}
                    """#
                let expected = Self.places.filter { $0.category == "rare" }.sorted { $0.rank < $1.rank }.map(\.name)
                var names: [String] = []
                var marker: String?
                var pages = 0
                repeat {
                    let (reply, rows) = try await world.page(query, marker: marker)
                    #expect(reply.status == 200, "\(reply.text.prefix(300))")
                    names += Self.names(reply)
                    if let rows { #expect(rows <= Self.candidateLimit, "page \(pages) read \(rows) rows") }
                    marker = reply.json["continuationMarker"]?.stringValue
                    pages += 1
                } while marker != nil && pages < 100
                #expect(names == expected)
            }
        }

        /// A sort PostgreSQL cannot compute (BYTES) over more candidates than the limit is refused with
        /// a clear `BAD_REQUEST` instead of reading them all; SQLite orders bytes in SQL and answers.
        @Test(arguments: RecordStoreBackend.allCases)
        func anOrderSortedInMemoryOverTooManyCandidatesIsRefused(backend: RecordStoreBackend) async throws {
            try await Self.with(backend) { world in
                let query = #"{"recordType":"Place","sortBy":[{"fieldName":"code"}]}"#
                let (reply, rows) = try await world.page(query)
                switch backend {
                case .postgres:
                    #expect(reply.status == 400 && reply.serverErrorCode == "BAD_REQUEST", "\(reply.text.prefix(300))")
                    #expect(reply.text.contains("needs an index") && reply.text.contains("BYTES field 'code'"), "\(reply.text)")
                    #expect((rows ?? 0) <= Self.candidateLimit + 1)
                case .sqlite:
                    #expect(Self.names(reply) == Self.places.sorted { $0.rank < $1.rank }.prefix(Self.limit).map(\.name))
                }
                // Narrowed by an indexed filter to fewer candidates, the same sort answers on both.
                let narrowed =
                    #"{"recordType":"Place","filterBy":[{"fieldName":"category","comparator":"EQUALS","fieldValue":{"value":"rare"}}],"sortBy":[{"fieldName":"code"}]}"#
                let answer = try await world.page(narrowed).reply
                #expect(Self.names(answer) == Self.places.filter { $0.category == "rare" }.sorted { $0.rank < $1.rank }.prefix(Self.limit).map(\.name))
            }
        }
    }
}
