import StratusClient
import StratusLogging
import StratusWire

/// A part of the zone's change feed, fetched while the part before it is delivered.
struct FeedPart: Sendable {
    /// The pages, merged (the token where they end, and whether the feed goes on).
    var feed: Database.RecordZoneChanges
    /// The controller's base generation when the part's first request went out: an upload that
    /// wrote a base after it may be newer than what the part read (``BaseGenerations``).
    var generation: Int
}

extension SyncController {
    /// Fetches the change feed from `startToken` in parts of ``SyncConfiguration/fetchBatchSize``
    /// records and delivers each part as its own batch, committed by its own ``FinishSync``, while the
    /// next part is fetched (so the server's reading and the decoding of part n + 1 overlap the
    /// delivery and the delegate's save of part n).
    ///
    /// Each part starts at the token the part before it ends at, so its commit (token, bases, dropped
    /// entries, in one transaction, after the delegate stored it) is never stale once the part before
    /// it committed; a crash at any point leaves the token at the end of the last part the store holds,
    /// and the next fetch goes on from there (a part the store saved but did not commit comes again,
    /// and is applied to the entities it created). A part the delegate did not commit (it has not
    /// called `finishSync` yet, or its commit was stale) ends the fetch: what follows is fetched by
    /// the next sync. Only the part that reaches the end of the feed counts as a completed fetch (the
    /// sync date, caught up, the record-gone rule of ``SyncSessionStateMachine``).
    ///
    /// - Parameters:
    ///   - startToken: The committed token (`nil`: the whole feed, a fresh device).
    ///   - changes: Gets the changes of every part delivered, also of the parts delivered before an error
    ///     (a token that expires between two parts: the caller fetches the whole zone and reports both).
    func pipelinedDelta(from startToken: SyncToken?, into changes: inout SyncChanges) async throws {
        var part = startFetching(from: startToken)
        defer { part.cancel() }
        var token = startToken
        while true {
            let fetched = try await withTaskCancellationHandler {
                try await part.value
            } onCancel: { [part] in
                part.cancel()
            }
            let feed = fetched.feed
            if feed.moreComing { part = startFetching(from: feed.changeToken) }
            var batch = PendingBatch(startToken: token, endToken: feed.changeToken, generation: fetched.generation)
            batch.endsFeed = !feed.moreComing
            let records = FetchedRecords(
                records: try feed.modifications(), deletions: feed.deletions.map { ($0.recordID.recordName, $0.recordType) }, full: false)
            var delivery = ChangeDelivery(records, batch: batch)
            changes.append(try await delivery.run(on: self))
            guard feed.moreComing else { return }
            guard try bookkeeping.changeToken == feed.changeToken else {
                logger.debug("a part of the change feed was not committed; the next sync fetches from the committed token")
                return
            }
            token = feed.changeToken
        }
    }

    /// Starts fetching the part of the feed after `token`, off the controller's executor.
    private func startFetching(from token: SyncToken?) -> Task<FeedPart, any Error> {
        let (database, zoneID, generation) = (database, zoneID, generations.current)
        let limit = configuration.fetchBatchSize
        return Task { try await Self.fetchPart(database, zoneID, since: token, limit: limit, generation: generation) }
    }

    @concurrent
    private static func fetchPart(
        _ database: Database, _ zoneID: ZoneID, since token: SyncToken?, limit: Int?, generation: Int
    )
        async throws -> FeedPart
    {
        FeedPart(feed: try await database.allRecordZoneChanges(inZoneWith: zoneID, since: token, limit: limit), generation: generation)
    }
}
