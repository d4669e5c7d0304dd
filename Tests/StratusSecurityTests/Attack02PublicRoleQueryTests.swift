import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 2 (a, c, d): a creator-only record type of the public database, attacked by another
    /// user and by a caller with an API token alone. The read policy is applied inside the query,
    /// markers and tokens are sealed, and rereference checks the policy.
    @Suite("02 public-database security roles") struct PublicRoleAttacks {
        static let byRank = [#"{"fieldName":"rank"}"#]
        static let byTitleDescending = [#"{"fieldName":"title","ascending":false}"#]

        /// (a) Pages of one record: every page is full, holds only readable records, and the markers
        /// lead from readable record to readable record; a caller who may read nothing gets nothing.
        @Test(arguments: RecordStoreBackend.allCases)
        func pagesHoldOnlyReadableRecordsAndAreFull(backend: RecordStoreBackend) async throws {
            try await PublicRoleWorld.with(backend) { world in
                for sorts in [[], Self.byRank, Self.byTitleDescending] {
                    let seen = try await world.pages(sorts: sorts, limit: 1, as: world.b.query)
                    #expect(seen.pages.allSatisfy { $0.count == 1 }, "B's pages: \(seen.pages) (sorts \(sorts))")
                    #expect(Set(seen.pages.joined()) == Set(PublicRoleWorld.visible), "B's pages: \(seen.pages)")
                    let anonymous = try await world.pages(sorts: sorts, limit: 1, as: world.anonymous)
                    #expect(anonymous.pages == [[]] && anonymous.markers.isEmpty, "anonymous pages: \(anonymous.pages)")
                }
                // The creator still pages through every record.
                let own = try await world.pages(sorts: Self.byRank, limit: 1, as: world.a.query)
                #expect(own.pages.joined().filter { $0.hasPrefix("a-") } == ["a-hidden-1", "a-hidden-2", "a-hidden-3"])
                #expect(own.pages.allSatisfy { $0.count == 1 })
            }
        }

        /// (a) The markers each caller receives carry no name or sort value of a hidden record,
        /// readable in any encoding; the creator's own markers are opaque too.
        @Test(arguments: RecordStoreBackend.allCases)
        func markersRevealNothingOfHiddenRecords(backend: RecordStoreBackend) async throws {
            try await PublicRoleWorld.with(backend) { world in
                var markers: [String] = []
                for caller in [world.b.query, world.anonymous, world.a.query] {
                    for sorts in [[], Self.byRank, Self.byTitleDescending] {
                        markers += try await world.pages(sorts: sorts, limit: 1, as: caller).markers
                    }
                }
                #expect(!markers.isEmpty)
                for marker in markers {
                    #expect(PublicRoleWorld.revealed(in: marker).isEmpty, "marker \(marker) shows \(PublicRoleWorld.revealed(in: marker))")
                    #expect(PublicRoleWorld.revealed(in: marker, secrets: PublicRoleWorld.visible + ["b-note", "recordName"]).isEmpty)
                }
            }
        }

        /// (a) A marker serves only its reader: the creator's marker replayed by B or an anonymous
        /// caller, or any altered marker, is a `BAD_REQUEST` that names the problem.
        @Test(arguments: RecordStoreBackend.allCases)
        func markersWorkOnlyForTheirReaderAndForgeriesAreBadRequests(backend: RecordStoreBackend) async throws {
            try await PublicRoleWorld.with(backend) { world in
                let own = try await world.query(sorts: Self.byTitleDescending, limit: 1, as: world.a.query)
                #expect(PublicRoleWorld.names(own) == ["a-hidden-3"])
                let marker = try #require(own.json["continuationMarker"]?.stringValue)
                for caller in [world.b.query, world.anonymous] {
                    let replay = try await world.query(sorts: Self.byTitleDescending, limit: 1, marker: marker, as: caller)
                    #expect(replay.status == 400 && replay.serverErrorCode == "BAD_REQUEST", "\(replay.text)")
                    #expect(PublicRoleWorld.names(replay).isEmpty)
                }
                var characters = Array(marker)
                for index in [0, characters.count / 2, characters.count - 1] {
                    characters[index] = characters[index] == "A" ? "B" : "A"
                }
                for forged in [String(characters), String(marker.dropLast(4)), marker + "AAAA", "AAAA", "not a marker", String(repeating: "A", count: 5000)] {
                    let reply = try await world.query(sorts: Self.byTitleDescending, limit: 1, marker: forged, as: world.a.query)
                    #expect(reply.status == 400 && reply.serverErrorCode == "BAD_REQUEST", "\(forged): \(reply.text)")
                    #expect(reply.text.contains("continuation marker is not valid"), "\(reply.text)")
                }
            }
        }

        /// (d) Filters on the values of hidden records answer exactly as filters nothing matches:
        /// same records, same (absent) marker, same body, for B and for an anonymous caller.
        @Test(arguments: RecordStoreBackend.allCases)
        func filtersOnHiddenValuesAnswerAsIfNothingMatched(backend: RecordStoreBackend) async throws {
            try await PublicRoleWorld.with(backend) { world in
                let pairs: [(hidden: String, absent: String)] = [
                    (
                        #"{"fieldName":"title","comparator":"EQUALS","fieldValue":{"value":"swordfish-secret-1"}}"#,
                        #"{"fieldName":"title","comparator":"EQUALS","fieldValue":{"value":"swordfish-secret-9"}}"#
                    ),
                    (
                        #"{"fieldName":"title","comparator":"BEGINS_WITH","fieldValue":{"value":"swordfish"}}"#,
                        #"{"fieldName":"title","comparator":"BEGINS_WITH","fieldValue":{"value":"zebrafish"}}"#
                    ),
                    (
                        #"{"fieldName":"rank","comparator":"EQUALS","fieldValue":{"value":3}}"#,
                        #"{"fieldName":"rank","comparator":"EQUALS","fieldValue":{"value":33}}"#
                    ),
                    (
                        #"{"fieldName":"rank","comparator":"GREATER_THAN","fieldValue":{"value":4}}"#,
                        #"{"fieldName":"rank","comparator":"GREATER_THAN","fieldValue":{"value":40}}"#
                    ),
                    (
                        #"{"fieldName":"title","comparator":"CONTAINS_ALL_TOKENS","fieldValue":{"value":"swordfish secret"}}"#,
                        #"{"fieldName":"title","comparator":"CONTAINS_ALL_TOKENS","fieldValue":{"value":"zebrafish secret"}}"#
                    ),
                    (
                        #"{"systemFieldName":"recordName","comparator":"EQUALS","fieldValue":{"value":"a-hidden-2"}}"#,
                        #"{"systemFieldName":"recordName","comparator":"EQUALS","fieldValue":{"value":"a-hidden-9"}}"#
                    ),
                ]
                for caller in [world.b.query, world.anonymous] {
                    for (hidden, absent) in pairs {
                        for (sorts, limit) in [([String](), 1), (Self.byRank, 1), (Self.byTitleDescending, 200), ([], nil)] as [([String], Int?)] {
                            let probe = try await world.query(filters: [hidden], sorts: sorts, limit: limit, as: caller)
                            let control = try await world.query(filters: [absent], sorts: sorts, limit: limit, as: caller)
                            #expect(probe.status == 200 && control.status == 200, "\(probe.text)")
                            #expect(probe.body == control.body, "\(hidden) answers \(probe.text), \(absent) answers \(control.text)")
                            #expect(PublicRoleWorld.names(probe).isEmpty)
                        }
                    }
                }
                // B's own matching records still come back: the filters work.
                let mine = try await world.query(
                    filters: [#"{"fieldName":"title","comparator":"BEGINS_WITH","fieldValue":{"value":"b-note"}}"#], sorts: Self.byRank, as: world.b.query
                )
                #expect(PublicRoleWorld.names(mine) == PublicRoleWorld.visible)
            }
        }

        /// (d) Looking up a hidden record answers exactly as looking up a missing one: same code and
        /// the same reason but for the name, so a lookup cannot tell that the record exists.
        @Test(arguments: RecordStoreBackend.allCases)
        func lookupOfAHiddenRecordAnswersAsAMissingOne(backend: RecordStoreBackend) async throws {
            try await PublicRoleWorld.with(backend) { world in
                let body = #"{"records":[{"recordName":"a-hidden-1"},{"recordName":"a-hidden-0"},{"recordName":"b-visible-1"}]}"#
                for caller in [world.b.query, world.anonymous] {
                    let reply = try await world.server.exchange("records/lookup", body, database: "public", query: caller)
                    #expect(reply.status == 200)
                    let items = try #require(reply.json["records"]?.arrayValue)
                    #expect(items.count == 3)
                    let shapes = items.prefix(2).map { Self.errorShape($0, name: $0["recordName"]?.stringValue ?? "?") }
                    #expect(shapes[0] == shapes[1], "hidden: \(items[0]), missing: \(items[1])")
                    #expect(items[0]["serverErrorCode"]?.stringValue == "NOT_FOUND")
                    #expect(!reply.text.contains("swordfish"))
                }
                // The creator reads it.
                let own = try await world.server.exchange("records/lookup", body, database: "public", query: world.a.query)
                #expect(own.json["records"]?[0]?["fields"]?["title"]?["value"]?.stringValue == "swordfish-secret-1")
            }
        }

        /// (c) `assets/rereference` of a hidden record's asset is refused like a missing record's, so
        /// no receipt is minted and the asset cannot be attached elsewhere and downloaded.
        @Test(arguments: RecordStoreBackend.allCases)
        func rereferencingAHiddenAssetIsRefusedAndItNeverDownloads(backend: RecordStoreBackend) async throws {
            try await PublicRoleWorld.with(backend) { world in
                let secret = Data("A's hidden photo".utf8)
                let asset = try await world.upload(secret, as: world.a)
                let saved = try await world.attach(asset, to: "a-hidden-1", title: "swordfish-secret-1", as: world.a)
                #expect(saved.status == 200 && PublicRoleWorld.codes(saved) == [nil], "\(saved.text)")
                #expect(try await world.downloadPhoto(of: "a-hidden-1", as: world.a) == secret)

                let request = { (name: String) in #"{"assets":[{"recordName":"\#(name)","fieldName":"photo"}]}"# }
                // The creator may rereference it: the endpoint works.
                let own = try await world.server.exchange("assets/rereference", request("a-hidden-1"), database: "public", query: world.a.query)
                #expect(own.status == 200 && own.json[0]?["receipt"]?.stringValue != nil, "\(own.text)")

                let attempt = try await world.server.exchange("assets/rereference", request("a-hidden-1"), database: "public", query: world.b.query)
                let missing = try await world.server.exchange("assets/rereference", request("a-hidden-0"), database: "public", query: world.b.query)
                #expect(attempt.status == 404 && attempt.serverErrorCode == "NOT_FOUND", "\(attempt.text)")
                #expect(Self.errorShape(attempt.json, name: "a-hidden-1") == Self.errorShape(missing.json, name: "a-hidden-0"))
                #expect(!attempt.text.contains("receipt"))

                // Nor through another database: A's zones are not in B's private database, and the shared one refuses it.
                let owned =
                    #"{"zoneID":{"zoneName":"_defaultZone","ownerRecordName":"\#(world.a.recordName)"},"assets":[{"recordName":"a-hidden-1","fieldName":"photo"}]}"#
                for database in ["private", "shared"] {
                    let elsewhere = try await world.server.exchange("assets/rereference", owned, database: database, query: world.b.query)
                    #expect(elsewhere.status >= 400 && !elsewhere.text.contains("receipt"), "\(database): \(elsewhere.text)")
                }

                // Had a receipt come back, B would attach it to a record of their own and download the bytes.
                if let receipt = attempt.json[0]?["receipt"]?.stringValue {
                    var borrowed = asset
                    borrowed.receipt = receipt
                    _ = try await world.attach(borrowed, to: "b-stolen", title: "stolen", as: world.b)
                    #expect(try await world.downloadPhoto(of: "b-stolen", as: world.b) != secret, "B downloaded A's hidden photo")
                }
            }
        }

        /// Sync tokens are sealed as markers are: opaque, and a tampered, truncated or pre-sealing
        /// token is a `BAD_REQUEST`, never a crash.
        @Test func syncTokensAreOpaqueAndForgeriesAreBadRequests() async throws {
            try await PublicRoleWorld.with(.sqlite) { world in
                let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Journal"}}}]}"#
                #expect(try await world.server.exchange("zones/modify", zone, query: world.a.query).status == 200)
                let note =
                    #"{"zoneID":{"zoneName":"Journal"},"operations":[{"operationType":"create","record":{"recordName":"entry-17","recordType":"Entry","fields":{"text":{"value":"hi"}}}}]}"#
                #expect(PublicRoleWorld.codes(try await world.server.exchange("records/modify", note, query: world.a.query)) == [nil])
                let changes = try await world.server.exchange("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Journal"}}]}"#, query: world.a.query)
                let zoneToken = try #require(changes.json["zones"]?[0]?["syncToken"]?.stringValue, "\(changes.text)")
                let database = try await world.server.exchange("changes/database", "{}", query: world.a.query)
                let databaseToken = try #require(database.json["syncToken"]?.stringValue, "\(database.text)")
                for token in [zoneToken, databaseToken] {
                    #expect(PublicRoleWorld.revealed(in: token, secrets: [#""s":"#, #""z":"#, #""d":"#, "Journal"]).isEmpty, "token \(token) is readable")
                }
                let oldFormat = Data([1]).base64EncodedString() + "." + Data(count: 16).base64EncodedString()
                for forged in [String(zoneToken.dropLast(3)), zoneToken + "AA", databaseToken, oldFormat, "", "%"] {
                    let body = #"{"zones":[{"zoneID":{"zoneName":"Journal"},"syncToken":"\#(forged)"}]}"#
                    let reply = try await world.server.exchange("changes/zone", body, query: world.a.query)
                    #expect(reply.json["zones"]?[0]?["serverErrorCode"]?.stringValue == "BAD_REQUEST", "\(forged): \(reply.text)")
                    #expect(reply.text.contains("sync token is not valid"), "\(reply.text)")
                }
                let replayed = try await world.server.exchange("changes/database", #"{"syncToken":"\#(zoneToken)"}"#, query: world.a.query)
                #expect(replayed.status == 400 && replayed.serverErrorCode == "BAD_REQUEST", "\(replayed.text)")
            }
        }

        /// An error item or body with its `uuid` dropped and `name` replaced, to compare two errors.
        static func errorShape(_ error: JSONValue, name: String) -> JSONValue {
            guard case .object(var object) = error else { return error }
            object["uuid"] = nil
            object["recordName"] = nil
            if case .string(let reason)? = object["reason"] { object["reason"] = .string(reason.replacingOccurrences(of: name, with: "<name>")) }
            return .object(object)
        }
    }
}
