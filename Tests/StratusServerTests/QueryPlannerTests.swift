import Foundation
@testable import StratusServer
import StratusWire
import Testing

/// The pure part of `records/query`: checking a query against the schema and normalizing its values.
@Suite struct QueryPlannerTests {
    static let schema = Schema(recordTypes: [
        "Event": RecordTypeSchema(fields: [
            "title": .justInTime(.string).fullyIndexed,
            "starts": .justInTime(.timestamp).fullyIndexed,
            "weight": .justInTime(.double).fullyIndexed,
            "owner": .justInTime(.reference).fullyIndexed,
            "venue": .justInTime(.location).fullyIndexed,
            "labels": .justInTime(.stringList).fullyIndexed,
            "blob": .justInTime(.bytes).fullyIndexed,
        ])
    ])

    func plan(_ filters: [Filter] = [], _ sorts: [Sort] = []) throws(ServiceError) -> QueryPlan {
        try QueryPlanner(schema: Self.schema, environment: .development).plan(Query(recordType: "Event", filterBy: filters, sortBy: sorts), limit: 50)
    }

    @Test func untaggedNumbersBecomeTheFieldsType() throws {
        let plan = try plan([
            Filter(.field("starts"), .greaterThan, .int64(1_000)),
            Filter(.field("weight"), .in, .int64List([1, 2])),
            Filter(.field("owner"), .equals, .string("p1")),
            Filter(.field("blob"), .equals, .string("AQI=")),
        ])
        #expect(
            plan.filters.map(\.value) == [
                .timestamp(Timestamp(millisecondsSince1970: 1_000)), .doubleList([1, 2]), .reference(Reference(recordName: "p1")), .bytes(Data([1, 2])),
            ])
        #expect(plan.filters.first?.field == .field(name: "starts", type: .timestamp))
        #expect(plan.limit == 50)
        #expect(plan.zoneRowIDs.isEmpty)
    }

    @Test func systemFieldValuesBecomeNamesAndTimestamps() throws {
        let plan = try plan([
            Filter(.system(.createdUserRecordName), .equals, .reference(Reference(recordName: "_abc"))),
            Filter(.system(.recordName), .in, .referenceList([Reference(recordName: "a"), Reference(recordName: "b")])),
            Filter(.system(.modifiedTimestamp), .lessThan, .int64(5)),
        ])
        #expect(plan.filters.map(\.value) == [.string("_abc"), .stringList(["a", "b"]), .timestamp(Timestamp(millisecondsSince1970: 5))])
    }

    @Test func tokenFiltersCarryTheQueryTokens() throws {
        let plan = try plan([Filter(.field("title"), .containsAllTokens, .string("Jazz & Blues, jazz!"))])
        #expect(plan.filters.first?.value == .stringList(["jazz", "blues"]))
    }

    @Test func sortsKeepDirectionAndRelativeLocation() throws {
        let here = Location(latitude: 1, longitude: 2)
        let plan = try plan([], [Sort(.field("venue"), ascending: false, relativeLocation: .location(here)), Sort(.system(.createdTimestamp))])
        #expect(
            plan.sorts == [
                QuerySort(field: .field(name: "venue", type: .location), ascending: false, relativeLocation: here),
                QuerySort(field: .system(.createdTimestamp), ascending: true),
            ])
    }

    @Test func listComparatorsNeedListFieldsAndListValues() throws {
        #expect(throws: ServiceError.badRequest("Comparator LIST_CONTAINS cannot be used with field 'title' of type STRING")) {
            try plan([Filter(.field("title"), .listContains, .string("x"))])
        }
        #expect(throws: ServiceError.badRequest("LIST_CONTAINS_ANY on field 'labels' needs a list value (STRING_LIST); got STRING")) {
            try plan([Filter(.field("labels"), .listContainsAny, .string("x"))])
        }
        let planned = try plan([Filter(.field("labels"), .listContainsAll, .emptyList)])
        #expect(planned.filters.first?.value == .stringList([]))
    }

    @Test func nearNeedsALocationFieldAndADistance() throws {
        let point = FieldValue.location(Location(latitude: 10, longitude: 20))
        #expect(throws: ServiceError.badRequest("NEAR on field 'venue' needs 'distance', the radius in meters")) {
            try plan([Filter(.field("venue"), .near, point)])
        }
        #expect(throws: ServiceError.badRequest("Comparator NEAR cannot be used with field 'weight' of type DOUBLE")) {
            try plan([Filter(.field("weight"), .near, point, distance: 5)])
        }
        #expect(throws: ServiceError.badRequest("NEAR on field 'venue' needs a latitude from -90 to 90 and a longitude from -180 to 180")) {
            try plan([Filter(.field("venue"), .near, .location(Location(latitude: 100, longitude: 0)), distance: 5)])
        }
        #expect(try plan([Filter(.field("venue"), .near, point, distance: 5)]).filters.first?.distance == 5)
    }

    @Test func unknownTypesFieldsAndTooManyFiltersAreRefused() {
        #expect(throws: ServiceError.badRequest("did not find record type 'Nope' in the production schema")) {
            try QueryPlanner(schema: Self.schema, environment: .production).plan(Query(recordType: "Nope"), limit: 1)
        }
        #expect(throws: ServiceError.badRequest("Unknown field 'nope' in record type 'Event'")) {
            try plan([], [Sort(.field("nope"))])
        }
        let many = Array(repeating: Filter(.field("title"), .equals, .string("x")), count: QueryPlanner.maximumFilters + 1)
        #expect(throws: ServiceError.badRequest("a query may have at most 32 filters; this one has 33")) { try plan(many) }
    }
}

/// How strings become search tokens.
@Suite struct SearchTokenizerTests {
    @Test func tokensAreLowercasedRunsOfLettersAndDigitsOnce() {
        #expect(SearchTokenizer.tokens(in: "Hello, World — hello-again 42") == ["hello", "world", "again", "42"])
        #expect(SearchTokenizer.tokens(in: "Zoë's CAFÉ") == ["zoë", "s", "café"])
        #expect(SearchTokenizer.tokens(in: " ,;- ").isEmpty)
        #expect(SearchTokenizer.tokens(in: ["Red car", "red BUS"]) == ["red", "car", "bus"])
    }
}

/// Distances and the bounding boxes that prefilter NEAR.
@Suite struct GeoDistanceTests {
    @Test func haversineMatchesKnownDistances() {
        let parisLondon = GeoDistance.meters(latitude1: 48.8566, longitude1: 2.3522, latitude2: 51.5074, longitude2: -0.1278)
        #expect(abs(parisLondon - 343_550) < 1_000)
        #expect(GeoDistance.meters(latitude1: 10, longitude1: 20, latitude2: 10, longitude2: 20) == 0)
    }

    @Test func boundingBoxesContainEveryPointInTheCircle() {
        var generator = SystemRandomNumberGenerator()
        let centres = [(0.0, 0.0), (48.85, 2.35), (-33.9, 151.2), (10, 179.9), (-10, -179.95), (89.9, 40), (-89.5, 0)]
        for (latitude, longitude) in centres {
            for radius in [10.0, 5_000, 300_000, 3_000_000] {
                let box = GeoDistance.BoundingBox(latitude: latitude, longitude: longitude, meters: radius)
                for _ in 0..<400 {
                    let pointLatitude = max(-90, min(90, latitude + Double.random(in: -40...40, using: &generator) * radius / 1_000_000))
                    var pointLongitude = longitude + Double.random(in: -60...60, using: &generator) * radius / 1_000_000
                    if pointLongitude > 180 { pointLongitude -= 360 }
                    if pointLongitude < -180 { pointLongitude += 360 }
                    let distance = GeoDistance.meters(latitude1: latitude, longitude1: longitude, latitude2: pointLatitude, longitude2: pointLongitude)
                    guard distance <= radius else { continue }
                    let inLatitude = (box.minimumLatitude...box.maximumLatitude).contains(pointLatitude)
                    let inLongitude =
                        box.allLongitudes
                        || (box.crossesAntimeridian
                            ? pointLongitude >= box.minimumLongitude || pointLongitude <= box.maximumLongitude
                            : (box.minimumLongitude...box.maximumLongitude).contains(pointLongitude))
                    #expect(
                        inLatitude && inLongitude, "(\(pointLatitude), \(pointLongitude)) is \(distance) m from (\(latitude), \(longitude)) but outside \(box)")
                }
            }
        }
    }
}
