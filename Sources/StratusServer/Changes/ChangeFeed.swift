import StratusCrypto
import StratusWire

/// Pages of the change feeds: a zone's record changes since a sync token, and a database's zone
/// changes since one; each page read in one snapshot, its token sealed (``TokenCodec``).
struct ChangeFeed: Sendable {
    let store: any RecordStore
    let tokens: TokenCodec
    let presenter: ZonePresenter
    /// How long a database feed page waits for changes held back (``ServiceLimits/databaseFeedWait``).
    var heldBackWait = Duration.seconds(3)

    struct ZoneChangesPage: Sendable {
        var zoneID: ZoneID
        var records: [RecordResult]
        var syncToken: SyncToken
        var moreComing: Bool
    }

    /// Reads one page of a zone's change feed in a single snapshot.
    ///
    /// The token after the page is the last change returned when more are
    /// coming, else the zone's latest change in the same snapshot, so no change
    /// is ever skipped or repeated while writers carry on.
    ///
    /// - Parameter view: A participant's view of the zone (record shares): it filters each page in
    ///   the page's snapshot, and its scope is sealed in the token, which then works only for it.
    ///   The token still moves past changes the view leaves out.
    func zoneChangesPage(
        _ context: DatabaseRequest, zoneID: ZoneID, token: SyncToken?, limit: Int, desiredKeys: [String]?, recordTypes: Set<String>?,
        view: ZoneFeedView? = nil
    ) async throws -> ZoneChangesPage {
        let name = try context.zoneName(of: zoneID)
        guard name != ZoneID.defaultZoneName else {
            throw ServiceError.badRequest("cannot get changes in default zone")
        }
        let position: ZoneFeedPosition?
        if let token {
            guard let opened = tokens.open(token.rawValue, kind: .zoneSync, as: ZoneFeedPosition.self) else {
                throw ServiceError.badRequest("the sync token is not valid for this server; fetch again without a token to resync")
            }
            guard opened.r == view?.scope else {
                throw ServiceError.badRequest(
                    "the sync token was issued for other records of zone '\(name)' than you can now see; fetch again without a token to resync"
                )
            }
            position = opened
        } else {
            position = nil
        }
        let database = context.database
        let presenter = self.presenter
        return try await store.read { tx in
            guard let zone = try tx.zone(named: name, in: database) else {
                throw ServiceError(.zoneNotFound, "zone '\(name)' does not exist")
            }
            if let refusal = position?.refusal(by: zone) {
                throw ServiceError.badRequest(refusal)
            }
            let after = position?.s ?? 0
            var changes = try tx.recordChanges(inZone: zone.rowID, after: after, limit: limit + 1, recordTypes: recordTypes)
            let moreComing = changes.count > limit
            if moreComing { changes.removeLast(changes.count - limit) }
            let next = moreComing ? (changes.last?.changeSequence ?? after) : max(after, zone.changeSequence)
            if let view {
                let page = ZoneFeedPage(zoneRowID: zone.rowID, changes: changes, after: position?.s, through: next, recordTypes: recordTypes)
                changes = try view.filter(page, tx)
            }
            return ZoneChangesPage(
                zoneID: zone.zoneID,
                records: changes.map { .record(RecordPresenter.wire($0, zone: zone, desiredKeys: desiredKeys)) },
                syncToken: presenter.token(zone, next, scope: view?.scope), moreComing: moreComing
            )
        }
    }

    struct DatabaseChangesPage: Sendable {
        var zones: [ZoneRow]
        var syncToken: SyncToken
        var moreComing: Bool
    }

    /// Reads one page of a database's zone-change feed.
    ///
    /// The token after the page is the last zone change returned (or the one it was sent, when
    /// nothing is new). A back end whose writers commit out of sequence order (PostgreSQL) holds
    /// back changes that committed while an older write is still in flight, so that the token never
    /// passes a change that commits later; when it does, the page is read again once those writes
    /// have ended, waiting at most ``heldBackWait``, so a client reads its own zone changes at once.
    /// Past the wait the held-back zones are reported too, without the token moving past them: they
    /// come again once final (late or twice, never lost).
    func databaseChangesPage(_ context: DatabaseRequest, token: SyncToken?, limit: Int) async throws -> DatabaseChangesPage {
        let database = context.database
        let digest = Self.digest(of: database)
        var start = DatabaseFeedPosition.start
        if let token {
            guard let position = tokens.open(token.rawValue, kind: .databaseSync, as: DatabaseSyncPosition.self), position.d == digest else {
                throw ServiceError.badRequest("the sync token is not valid for this database; fetch again without a token to resync")
            }
            start = DatabaseFeedPosition(sequence: position.s, zoneRowID: position.z)
        }
        let after = start
        let store = self.store
        let read = { @Sendable in try await store.read { try $0.zoneChanges(in: database, after: after, limit: limit + 1) } }
        var page = try await read()
        if let target = page.heldBackThrough, page.zones.count <= limit {
            let deadline = ContinuousClock.now + heldBackWait
            var pause = Duration.milliseconds(1)
            while page.heldBackThrough != nil, page.horizon <= target, ContinuousClock.now < deadline {
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(50))
                page = try await read()
            }
        }
        var zones = page.zones
        let moreComing = zones.count > limit
        if moreComing { zones.removeLast(zones.count - limit) }
        let next = zones.last.map(DatabaseFeedPosition.init(after:)) ?? start
        if !moreComing { zones += page.heldBack.prefix(limit - zones.count) }
        return DatabaseChangesPage(
            zones: zones,
            syncToken: SyncToken(tokens.seal(DatabaseSyncPosition(d: digest, s: next.sequence, z: next.zoneRowID), kind: .databaseSync)),
            moreComing: moreComing
        )
    }

    private static func digest(of database: DatabaseKey) -> String {
        String(SHA256.hash(database.description).hexString.prefix(16))
    }
}
