import Foundation
@testable import StratusServer
import StratusWire
import Testing

/// The courier's pure state machine: registration, parking, signals, timeouts, shutdown.
@Suite struct CourierStateMachineTests {
    typealias Machine = CourierStateMachine<String>

    /// A signal that arrives between registering and parking is not lost: the park resumes at once.
    @Test func signalBeforeParkingResumesAtOnce() throws {
        var machine = Machine()
        let id = try machine.mustRegister("t")
        #expect(machine.signal(["t"]).isEmpty)
        guard case .resume(let continuation, .signalled) = machine.suspend(id, with: "c1") else {
            Issue.record("expected an immediate resume")
            return
        }
        #expect(continuation == "c1")
        #expect(machine.count == 0)
    }

    /// A signal resumes every parked poll of its token, and only of its token.
    @Test func signalResumesOnlyThatTokensPolls() throws {
        var machine = Machine()
        let a1 = try machine.mustRegister("a")
        let a2 = try machine.mustRegister("a")
        let b = try machine.mustRegister("b")
        for (id, name) in [(a1, "a1"), (a2, "a2"), (b, "b")] {
            guard case .parked = machine.suspend(id, with: name) else { Issue.record("\(name) did not park"); return }
        }
        #expect(Set(machine.signal(["a"])) == ["a1", "a2"])
        #expect(machine.count == 1)
        #expect(machine.signal(["a"]).isEmpty)
    }

    /// A timeout ends one parked poll; a late signal finds nothing.
    @Test func timeoutEndsOnePoll() throws {
        var machine = Machine()
        let id = try machine.mustRegister("t")
        _ = machine.suspend(id, with: "c")
        #expect(machine.finish(id, because: .timedOut) == "c")
        #expect(machine.finish(id, because: .timedOut) == nil)
        #expect(machine.signal(["t"]).isEmpty)
    }

    /// Cancellation before parking makes the park return at once with `cancelled`.
    @Test func cancellationBeforeParking() throws {
        var machine = Machine()
        let id = try machine.mustRegister("t")
        #expect(machine.finish(id, because: .cancelled) == nil)
        guard case .resume(_, .cancelled) = machine.suspend(id, with: "c") else {
            Issue.record("expected cancelled")
            return
        }
    }

    /// Closing resumes every parked poll and refuses new registrations.
    @Test func closeReleasesEverything() throws {
        var machine = Machine()
        let parked = try machine.mustRegister("a")
        _ = machine.suspend(parked, with: "p")
        let armed = try machine.mustRegister("b")
        #expect(machine.close() == ["p"])
        guard case .resume(_, .closed) = machine.suspend(armed, with: "late") else {
            Issue.record("expected closed")
            return
        }
        #expect(machine.register(token: "c") == nil)
    }
}

/// Query filters evaluated in memory against stored records.
@Suite struct RecordFilterEvaluatorTests {
    static let stamp = StoredRecord.Stamp(timestamp: 1_000, userRecordName: "_alice", deviceID: "d")
    static let record = StoredRecord(
        zoneRowID: 1, recordName: "r1", recordType: "Note", changeTag: "1",
        fields: [
            "title": .string("Fix the Login bug"), "priority": .int64(5), "score": .double(2.5),
            "tags": .stringList(["work", "urgent"]), "due": .timestamp(Timestamp(millisecondsSince1970: 5_000)),
            "place": .location(Location(latitude: 48.8566, longitude: 2.3522)), "owner": .reference(Reference(recordName: "u1")),
        ],
        created: stamp, modified: stamp, changeSequence: 1
    )

    static let cases: [(Filter, Bool)] = [
        (Filter(.field("priority"), .equals, .int64(5)), true),
        (Filter(.field("priority"), .equals, .double(5)), true),
        (Filter(.field("priority"), .notEquals, .int64(5)), false),
        (Filter(.field("priority"), .lessThan, .int64(6)), true),
        (Filter(.field("score"), .greaterThan, .int64(2)), true),
        (Filter(.field("score"), .lessThanOrEquals, .double(2.5)), true),
        (Filter(.field("due"), .greaterThanOrEquals, .timestamp(Timestamp(millisecondsSince1970: 5_001))), false),
        (Filter(.field("priority"), .in, .int64List([1, 5])), true),
        (Filter(.field("priority"), .notIn, .int64List([1, 5])), false),
        (Filter(.field("title"), .beginsWith, .string("Fix")), true),
        (Filter(.field("title"), .notBeginsWith, .string("Fix")), false),
        (Filter(.field("title"), .containsAllTokens, .string("login fix")), true),
        (Filter(.field("title"), .containsAllTokens, .string("login crash")), false),
        (Filter(.field("title"), .containsAnyTokens, .string("login crash")), true),
        (Filter(.field("place"), .near, .location(Location(latitude: 48.86, longitude: 2.35)), distance: 1_000), true),
        (Filter(.field("place"), .near, .location(Location(latitude: 51.5, longitude: -0.12)), distance: 1_000), false),
        (Filter(.field("tags"), .listContains, .string("work")), true),
        (Filter(.field("tags"), .notListContains, .string("work")), false),
        (Filter(.field("tags"), .listContainsAny, .stringList(["home", "urgent"])), true),
        (Filter(.field("tags"), .notListContainsAny, .stringList(["home"])), true),
        (Filter(.field("tags"), .listContainsAll, .stringList(["work", "urgent"])), true),
        (Filter(.field("tags"), .notListContainsAll, .stringList(["work", "home"])), true),
        (Filter(.field("tags"), .listMemberBeginsWith, .string("urg")), true),
        (Filter(.field("tags"), .notListMemberBeginsWith, .string("wo")), false),
        (Filter(.field("owner"), .equals, .reference(Reference(recordName: "u1"))), true),
        (Filter(.system(.recordName), .equals, .string("r1")), true),
        (Filter(.system(.createdUserRecordName), .equals, .reference(Reference(recordName: "_alice"))), true),
        (Filter(.system(.modifiedTimestamp), .lessThan, .timestamp(Timestamp(millisecondsSince1970: 2_000))), true),
        // A record without the field: positive comparators never match, NOT_… ones always do, as
        // records/query answers on both back ends (found by the query-filter fuzz target).
        (Filter(.field("missing"), .equals, .int64(1)), false),
        (Filter(.field("missing"), .notEquals, .int64(1)), true),
        (Filter(.field("missing"), .notIn, .int64List([1])), true),
        (Filter(.field("missing"), .notBeginsWith, .string("a")), true),
        (Filter(.field("missing"), .notListContains, .string("a")), true),
        (Filter(.field("missing"), .notListContainsAny, .stringList(["a"])), true),
        (Filter(.field("missing"), .notListContainsAll, .stringList(["a"])), true),
        (Filter(.field("missing"), .notListMemberBeginsWith, .string("a")), true),
        (Filter(.field("missing"), .listContains, .string("a")), false),
        (Filter(.field("tags"), .containsAnyTokens, .string("URGENT")), true),
    ]

    /// Every comparator of Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort” on a record with each kind of field.
    @Test(arguments: cases) func comparatorMatchesAsSpecified(_ filter: Filter, _ expected: Bool) {
        #expect(RecordFilterEvaluator.matches(filter, Self.record) == expected)
    }

    /// Subscribers receive only pushes about databases they may read.
    @Test func audienceIsLimitedToReaders() {
        let privateDB = DatabaseKey(container: "c", environment: .development, scope: .private, owner: "_alice")
        let publicDB = DatabaseKey(container: "c", environment: .development, scope: .public, owner: DatabaseKey.publicOwner)
        #expect(PushAudience.mayRead("_alice", privateDB))
        #expect(!PushAudience.mayRead("_bob", privateDB))
        #expect(PushAudience.mayRead("_bob", publicDB))
    }

    /// An update fires when the record matches before or after; a deletion uses the record as it was.
    @Test func updatesMatchBeforeOrAfterAndDeletionsTheOldRecord() {
        let subscription = Subscription(
            subscriptionID: "s", subscriptionType: .query,
            query: Query(recordType: "Note", filterBy: [Filter(.field("priority"), .equals, .int64(5))]),
            firesOn: [.update, .delete]
        )
        var changed = Self.record
        changed.fields["priority"] = .int64(1)
        #expect(SubscriptionMatcher.fires(subscription, for: RecordChange(before: Self.record, after: changed), inZone: "_defaultZone"))
        #expect(!SubscriptionMatcher.fires(subscription, for: RecordChange(before: changed, after: changed), inZone: "_defaultZone"))
        #expect(SubscriptionMatcher.fires(subscription, for: RecordChange(before: Self.record, after: nil), inZone: "_defaultZone"))
        #expect(!SubscriptionMatcher.fires(subscription, for: RecordChange(before: nil, after: Self.record), inZone: "_defaultZone"))
        var defaultOnly = subscription
        defaultOnly.zoneWide = false
        #expect(!SubscriptionMatcher.fires(defaultOnly, for: RecordChange(before: Self.record, after: nil), inZone: "Work"))
    }
}

/// `Range` header parsing for asset downloads.
@Suite struct ByteRangeTests {
    @Test func rangesAreParsedAsRFC9110Says() {
        #expect(ByteRange.parse(nil, size: 10) == .whole)
        #expect(ByteRange.parse("bytes=0-3", size: 10) == .partial(0..<4))
        #expect(ByteRange.parse("bytes=5-", size: 10) == .partial(5..<10))
        #expect(ByteRange.parse("bytes=-3", size: 10) == .partial(7..<10))
        #expect(ByteRange.parse("bytes=8-100", size: 10) == .partial(8..<10))
        #expect(ByteRange.parse("bytes=10-", size: 10) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-1,4-5", size: 10) == .whole)
        #expect(ByteRange.parse("items=0-1", size: 10) == .whole)
        #expect(ByteRange.parse("bytes=-5", size: 0) == .unsatisfiable)
    }
}

extension CourierStateMachine {
    /// Registers a poll, failing the test when the machine is closed.
    mutating func mustRegister(_ token: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> WaiterID {
        let id = register(token: token)
        return try #require(id, sourceLocation: sourceLocation)
    }
}

/// The `{aps, ck}` payload reflects the subscription's notification info (Documentation/0007-push-and-assets.md, “The web courier”).
@Suite struct NotificationPayloadTests {
    static let zone = ZoneRow(
        rowID: 1, database: DatabaseKey(container: "iCloud.c", environment: .development, scope: .private, owner: "_alice"),
        zoneName: "Inbox", changeSequence: 1, databaseSequence: 1, createdAt: 0, isDeleted: false
    )

    static func stored(_ info: NotificationInfo?) -> StoredSubscription {
        StoredSubscription(
            database: zone.database, subscriber: "_alice",
            subscription: Subscription(subscriptionID: "s1", subscriptionType: .query, query: Query(recordType: "Note"), notificationInfo: info),
            createdAt: 0
        )
    }

    /// Alert text, badge, sound, category, content-available and additional fields all reach the payload.
    @Test func notificationInfoIsReflected() throws {
        var info = NotificationInfo(alertBody: "New note", soundName: "ping.aiff", shouldBadge: true, shouldSendContentAvailable: true)
        info.category = "NOTES"
        info.additionalFields = ["title", "missing"]
        let record = RecordFilterEvaluatorTests.record
        let payload = NotificationPayload.query(
            Self.stored(info), change: RecordChange(before: nil, after: record), zone: Self.zone, recipient: "_alice", notificationID: "n1"
        )
        #expect(payload.aps?.alert == .text("New note"))
        #expect(payload.aps?.badge == 1)
        #expect(payload.aps?.sound == "ping.aiff")
        #expect(payload.aps?.category == "NOTES")
        #expect(payload.aps?.contentAvailable == 1)
        #expect(payload.ck.qry?.af == ["title": .string("Fix the Login bug")])
        #expect(
            payload.ck.qry
                == CourierNotification.QueryNotification(
                    sid: "s1", rid: "r1", zid: "Inbox", zoid: "_alice", fo: 1, dbs: 2, af: ["title": .string("Fix the Login bug")]
                ))
        #expect(payload.ck.ckuserid == "_alice" && payload.ck.cid == "iCloud.c" && payload.ck.nid == "n1")
    }

    /// Localized alerts become the dictionary form, with field names in the arguments replaced by the record's values.
    @Test func localizedAlertsSubstituteFieldValues() {
        var info = NotificationInfo()
        info.alertLocalizationKey = "NOTE_FROM"
        info.alertLocalizationArgs = ["title", "priority", "literal"]
        let aps = NotificationPayload.aps(info, record: RecordFilterEvaluatorTests.record)
        #expect(aps?.alert == .dictionary(CourierNotification.AlertDictionary(locKey: "NOTE_FROM", locArgs: ["Fix the Login bug", "5", "literal"])))
        #expect(aps?.contentAvailable == nil)
        #expect(NotificationPayload.aps(nil, record: nil) == nil)
    }
}
