import Foundation
import StratusWire
import Testing

/// A fixture name paired with the type it must round-trip through.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    let name: String
    let check: @Sendable () throws -> Void

    var testDescription: String { name }

    init<T: Codable & SendableMetatype>(_ name: String, _ type: T.Type) {
        self.name = name
        self.check = { try Fixture.roundTrip(type, name) }
    }
}

@Suite struct GoldenFixtureTests {
    static let cases: [FixtureCase] = [
        FixtureCase("RecordsModifyRequest", RecordsModify.Request.self),
        FixtureCase("RecordsModifyResponse", RecordsModify.Response.self),
        FixtureCase("RecordAllFieldTypes", Record.self),
        FixtureCase("ShareRecord", Record.self),
        FixtureCase("RecordsLookupRequest", RecordsLookup.Request.self),
        FixtureCase("RecordsLookupResponse", RecordsLookup.Response.self),
        FixtureCase("RecordsQueryRequest", RecordsQuery.Request.self),
        FixtureCase("RecordsQueryResponse", RecordsQuery.Response.self),
        FixtureCase("RecordsChangesRequest", RecordsChanges.Request.self),
        FixtureCase("RecordsChangesResponse", RecordsChanges.Response.self),
        FixtureCase("RecordsResolveRequest", RecordsResolve.Request.self),
        FixtureCase("RecordsResolveResponse", RecordsAccept.Response.self),
        FixtureCase("AssetsUploadRequest", AssetsUpload.Request.self),
        FixtureCase("AssetsUploadResponse", AssetsUpload.Response.self),
        FixtureCase("AssetUploadReceipt", AssetUploadReceipt.self),
        FixtureCase("AssetsRereferenceRequest", AssetsRereference.Request.self),
        FixtureCase("AssetsRereferenceResponse", AssetsRereference.Response.self),
        FixtureCase("ZonesListResponse", ZonesList.Response.self),
        FixtureCase("ZonesLookupRequest", ZonesLookup.Request.self),
        FixtureCase("ZonesLookupResponse", ZonesLookup.Response.self),
        FixtureCase("ZonesModifyRequest", ZonesModify.Request.self),
        FixtureCase("ZonesModifyResponse", ZonesModify.Response.self),
        FixtureCase("ZonesChangesRequest", ZonesChanges.Request.self),
        FixtureCase("ZonesChangesResponse", ZonesChanges.Response.self),
        FixtureCase("DatabaseChangesRequest", DatabaseChanges.Request.self),
        FixtureCase("DatabaseChangesResponse", DatabaseChanges.Response.self),
        FixtureCase("ZoneChangesRequest", ZoneChanges.Request.self),
        FixtureCase("ZoneChangesResponse", ZoneChanges.Response.self),
        FixtureCase("SubscriptionsListResponse", SubscriptionsList.Response.self),
        FixtureCase("SubscriptionsLookupRequest", SubscriptionsLookup.Request.self),
        FixtureCase("SubscriptionsLookupResponse", SubscriptionsLookup.Response.self),
        FixtureCase("SubscriptionsModifyRequest", SubscriptionsModify.Request.self),
        FixtureCase("SubscriptionsModifyResponse", SubscriptionsModify.Response.self),
        FixtureCase("TokensCreateRequest", TokensCreate.Request.self),
        FixtureCase("TokensCreateResponse", TokensCreate.Response.self),
        FixtureCase("TokensRegisterRequest", TokensRegister.Request.self),
        FixtureCase("CourierNotificationQuery", CourierNotification.self),
        FixtureCase("CourierNotificationZone", CourierNotification.self),
        FixtureCase("CourierNotificationDatabase", CourierNotification.self),
        FixtureCase("UsersCallerResponse", UsersCaller.Response.self),
        FixtureCase("UsersCurrentResponse", UsersCurrent.Response.self),
        FixtureCase("UsersDiscoverRequest", UsersDiscover.Request.self),
        FixtureCase("UsersDiscoverResponse", UsersDiscover.Response.self),
        FixtureCase("UsersLookupEmailRequest", UsersLookupEmail.Request.self),
        FixtureCase("UsersLookupEmailResponse", UsersLookupEmail.Response.self),
        FixtureCase("UsersLookupIDRequest", UsersLookupID.Request.self),
        FixtureCase("ErrorResponse", ErrorResponse.self),
        FixtureCase("ErrorResponseThrottled", ErrorResponse.self),
    ]

    /// Every golden fixture decodes and re-encodes to exactly the same JSON.
    @Test(arguments: cases)
    func fixtureRoundTripsExactly(_ fixture: FixtureCase) throws {
        try fixture.check()
    }

    /// Every fixture file on disk is covered by a round-trip case.
    @Test func everyFixtureFileHasARoundTripCase() throws {
        let directory = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }
            .map { String($0.dropLast(5)) }
        #expect(Set(names) == Set(Self.cases.map(\.name)))
    }

    /// The records/modify request decodes into validated operations with their intents.
    @Test func modifyRequestDecodesToTypedOperations() throws {
        let request = try Fixture.roundTrip(RecordsModify.Request.self, "RecordsModifyRequest")
        #expect(request.isAtomic)
        #expect(request.zoneID == ZoneID(zoneName: "Projects"))
        #expect(request.operations.map(\.operationType) == RecordOperation.OperationType.allCases)
        let zone = request.effectiveZoneID
        guard case .create(let created) = request.operations[0].intent(in: zone) else {
            Issue.record("expected create")
            return
        }
        #expect(created["due"] == .timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000)))
        #expect(created["title"] == .string("Ship"))
        #expect(
            request.operations[1].intent(in: zone)
                == .update(
                    Record(recordName: "t0", recordChangeTag: "1e", fields: ["done": .int64(1)]), expecting: "1e"))
        #expect(request.operations[1].desiredKeys == [])
        #expect(request.operations[2].record["weight"] == .double(2.0))
        #expect(request.operations[4].record["tags"] == .stringList([]))
        #expect(request.operations[5].intent(in: zone) == .delete(RecordID(recordName: "t5", zoneID: zone), expecting: "3a"))
        #expect(request.operations[6].intent(in: zone) == .forceDelete(RecordID(recordName: "t9", zoneID: zone)))
    }

    /// The records/modify response tells records, errors and delete acknowledgements apart.
    @Test func modifyResponseSeparatesRecordsFromErrors() throws {
        let response = try Fixture.roundTrip(RecordsModify.Response.self, "RecordsModifyResponse")
        #expect(response.records.count == 3)
        let saved = try #require(response.records[0].record)
        #expect(saved.recordChangeTag == "k3b")
        #expect(saved.created?.timestamp.millisecondsSince1970 == 1_748_000_000_123)
        #expect(saved.zoneID?.zoneType == "REGULAR_CUSTOM_ZONE")
        let conflict = try #require(response.records[1].error)
        #expect(conflict.serverErrorCode == .conflict)
        #expect(conflict.recordName == "t0")
        #expect(response.records[2].record?.isDeleted == true)
    }

    /// Every field type decodes to its case, with exact Int64 and a whole-number double kept as DOUBLE.
    @Test func allFieldTypesDecodeToTheirCases() throws {
        let record = try Fixture.roundTrip(Record.self, "RecordAllFieldTypes")
        #expect(record["i"] == .int64(.max))
        #expect(record["d"] == .double(2.0))
        #expect(record["b"] == .bytes(Data([0, 1, 2, 255])))
        #expect(record["r"] == .reference(Reference(recordName: "p1", zoneID: ZoneID(zoneName: "Projects"), action: .deleteSelf)))
        #expect(record["il"] == .int64List([1, -2, 9_007_199_254_740_993]))
        #expect(record["el"] == .int64List([]))
        #expect(record["ul"] == .emptyList)
        #expect(record["l"]?.locationValue?.timestamp == Timestamp(millisecondsSince1970: 1_747_999_812_000))
        #expect(record["a"]?.assetValue?.downloadURL?.contains("${f}") == true)
        #expect(record.parent == Reference(recordName: "root"))
        #expect(Set(record.fields?.values.map(\.type) ?? []) == Set(FieldType.allCases))
    }

    /// A share record keeps its participants, owner and permissions.
    @Test func shareRecordKeepsSharingKeys() throws {
        let share = try Fixture.roundTrip(Record.self, "ShareRecord")
        #expect(share.isShare)
        #expect(share.forRecord == ShareRoot(recordName: "root", recordChangeTag: "5"))
        #expect(share.publicPermission == SharePermission.none)
        #expect(share.participants?.map(\.acceptanceStatus) == [.accepted, .invited])
        #expect(share.owner?.type == .owner)
        #expect(share.fields == [:])
    }

    /// Query requests carry system fields, list-tagged IN values, NEAR distances and sorts.
    @Test func queryRequestDecodesFiltersAndSorts() throws {
        let request = try Fixture.roundTrip(RecordsQuery.Request.self, "RecordsQueryRequest")
        let filters = try #require(request.query.filterBy)
        #expect(filters[0].target == .system(.createdUserRecordName))
        #expect(filters[2].fieldValue == .int64List([1, 2]))
        #expect(filters[3].comparator == .near && filters[3].distance == 1500)
        let sorts = try #require(request.query.sortBy)
        #expect(sorts[0].isAscending == false)
        #expect(sorts[2].isAscending)
        #expect(request.continuationMarker == "AQIDBAUGBwg=")
    }

    /// Change feeds expose tokens, moreComing and tombstones; per-zone errors stay per zone.
    @Test func changeFeedsDecodeTokensAndTombstones() throws {
        let records = try Fixture.roundTrip(RecordsChanges.Response.self, "RecordsChangesResponse")
        #expect(records.syncToken == "AQAAAAAAAAAC")
        #expect(records.records[1].record?.isDeleted == true)
        let zones = try Fixture.roundTrip(ZonesChanges.Response.self, "ZonesChangesResponse")
        #expect(zones.metaSyncToken == "AQAAAAAAAAAF")
        let database = try Fixture.roundTrip(DatabaseChanges.Response.self, "DatabaseChangesResponse")
        #expect(database.moreComing)
        #expect(database.zones[1].zone?.deleted == true)
        let zoneChanges = try Fixture.roundTrip(ZoneChanges.Response.self, "ZoneChangesResponse")
        guard case .error(let error) = zoneChanges.zones[1] else {
            Issue.record("expected a zone error")
            return
        }
        #expect(error.serverErrorCode == .badRequest)
    }

    /// Subscription responses distinguish full subscriptions, bare delete acks and errors.
    @Test func subscriptionResultsDistinguishDeleteAcknowledgements() throws {
        let response = try Fixture.roundTrip(SubscriptionsModify.Response.self, "SubscriptionsModifyResponse")
        guard case .subscription(let query) = response.subscriptions[0] else {
            Issue.record("expected a subscription")
            return
        }
        #expect(query.firesOn == [.create, .update, .delete])
        #expect(query.notificationInfo?.shouldBadge == true)
        #expect(response.subscriptions[2] == .deleted(subscriptionID: "old"))
        guard case .error(let error) = response.subscriptions[3] else {
            Issue.record("expected an error")
            return
        }
        #expect(error.serverErrorCode == .internalError)
        let request = try Fixture.roundTrip(SubscriptionsModify.Request.self, "SubscriptionsModifyRequest")
        #expect(request.operations[2] == .delete(subscriptionID: "old"))
    }

    /// The courier payload decodes string and dictionary alerts and each notification kind.
    @Test func courierNotificationsDecode() throws {
        let query = try Fixture.roundTrip(CourierNotification.self, "CourierNotificationQuery")
        #expect(query.aps?.alert == .text("New note"))
        #expect(query.aps?.contentAvailable == 1)
        #expect(query.ck.qry?.fo == 1)
        let zone = try Fixture.roundTrip(CourierNotification.self, "CourierNotificationZone")
        #expect(
            zone.aps?.alert
                == .dictionary(
                    .init(
                        body: "Projects changed", locKey: "ZONE_CHANGED", locArgs: ["Projects"], actionLocKey: "VIEW", launchImage: "l.png")))
        #expect(zone.ck.fet?.dbs == 2)
        #expect(zone.ck.p == 1)
    }

    /// users/caller carries the identity both flat and in a users array.
    @Test func callerResponseCarriesBothForms() throws {
        let response = try Fixture.roundTrip(UsersCaller.Response.self, "UsersCallerResponse")
        #expect(response.identity.nameComponents?.phoneticRepresentation?.givenName == "AY-da")
        let rebuilt = UsersCaller.Response(identity: response.identity)
        #expect(try WireCoding.encodeJSON(rebuilt) == Fixture.json("UsersCallerResponse"))
    }

    /// Error bodies decode with code, status, retryAfter and redirectURL.
    @Test func errorResponsesDecode() throws {
        let required = try Fixture.roundTrip(ErrorResponse.self, "ErrorResponse")
        #expect(required.httpStatus == 421)
        #expect(required.redirectURL != nil)
        let throttled = try Fixture.roundTrip(ErrorResponse.self, "ErrorResponseThrottled")
        #expect(throttled.retryAfter == 5 && throttled.serverErrorCode.isRetryable)
    }

    /// assets/rereference answers a bare top-level array; a wrapped form is accepted too.
    @Test func rereferenceResponseAcceptsBothShapes() throws {
        let bare = try Fixture.roundTrip(AssetsRereference.Response.self, "AssetsRereferenceResponse")
        let wrapped = try WireCoding.decode(
            AssetsRereference.Response.self, from: Data(#"{"assets":[{"fileChecksum":"ARn6","size":1}]}"#.utf8))
        #expect(bare.assets.count == 1)
        #expect(wrapped.assets == [Asset(fileChecksum: "ARn6", size: 1)])
    }

    /// zones/lookup accepts `{"zoneID": …}` items as well as bare zone IDs.
    @Test func zonesLookupAcceptsWrappedItems() throws {
        let request = try WireCoding.decode(
            ZonesLookup.Request.self,
            from: Data(#"{"zones":[{"zoneID":{"zoneName":"A"}},{"zoneName":"B","ownerRecordName":"_x"}]}"#.utf8))
        #expect(request.zones == [ZoneID(zoneName: "A"), ZoneID(zoneName: "B", ownerRecordName: "_x")])
    }

    /// changes/zone accepts Apple's printed `numberAsStrings` spelling.
    @Test func zoneChangesAcceptsNumberAsStringsSpelling() throws {
        let request = try WireCoding.decode(
            ZoneChanges.Request.self, from: Data(#"{"zones":[{"zoneID":{"zoneName":"A"}}],"numberAsStrings":true}"#.utf8))
        #expect(request.numbersAsStrings == true)
        #expect(try WireCoding.encodeJSON(request)["numbersAsStrings"] == .bool(true))
    }
}
