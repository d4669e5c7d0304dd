import Foundation
public import StratusWire

extension Database {
    /// Fetches every change of a zone since a token (or the next `limit` of them), page after page,
    /// merged into one result; each page is asked for while the page before it is decoded.
    ///
    /// A record modified and later deleted appears only as a deletion, and the reverse.
    ///
    /// With `limit`, it stops after the first page that brings the changes read to `limit` or more
    /// (modifications and deletions, a record listed by two pages counted twice), and
    /// ``RecordZoneChanges/moreComing`` says whether the feed goes on from the returned token: a long
    /// feed read in parts, each ending on a page boundary.
    ///
    /// The pages are a chain (each page's token asks for the next), so it reads the next page's token
    /// and `moreComing` from a page's body before decoding it
    /// (``StratusWire/ZoneChanges/Response/continuation(in:)``) and asks for that page while it
    /// decodes: the server reads and sends page n + 1 while page n is decoded. The decoded page is the
    /// truth: if it disagrees with what was read ahead, the request sent ahead is cancelled and the
    /// next page is asked for from the decoded token; if it cannot be decoded, nothing is returned.
    ///
    /// ```swift
    /// import StratusClient
    ///
    /// func readInParts(_ database: Database, zone: ZoneID) async throws {
    ///     var token: SyncToken? = nil
    ///     var more = true
    ///     while more {
    ///         let part = try await database.allRecordZoneChanges(inZoneWith: zone, since: token, limit: 2_000)
    ///         print(part.modificationResultsByID.count, "changes")  // store them, then remember the token
    ///         token = part.changeToken
    ///         more = part.moreComing
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - zoneID: The zone.
    ///   - token: Where the last fetch ended; `nil` fetches every live record.
    ///   - desiredKeys: The fields to fetch; `nil` fetches all.
    ///   - limit: Stop once this many changes (modifications and deletions) are read; `nil` reads to the end.
    /// - Returns: The changes with the token where they end (``RecordZoneChanges/moreComing`` is `false`
    ///   at the end of the feed).
    /// - Throws: ``StratusError``, also when the server says more is coming but does not move the sync token;
    ///   `CancellationError` when the task is cancelled (the request sent ahead is cancelled with it).
    public func allRecordZoneChanges(
        inZoneWith zoneID: ZoneID, since token: SyncToken?, desiredKeys: [String]? = nil, limit: Int? = nil
    ) async throws -> RecordZoneChanges {
        let limit = limit ?? .max
        var merged = MergedZoneChanges()
        var request = PageRequest(self, zoneID, since: token, desiredKeys: desiredKeys)
        defer { request.cancel() }
        while true {
            let body = try await request.body()
            let asked = request.token
            if let next = ZoneChanges.Response.continuation(in: body), next.moreComing, next.syncToken != asked,
                merged.count + next.recordCount < limit
            {
                request = PageRequest(self, zoneID, since: next.syncToken, desiredKeys: desiredKeys)
            }
            let page = try zoneChangesPage(body, zoneID: zoneID, hadToken: asked != nil)
            guard page.changeToken != asked || !page.moreComing else {
                throw StratusError(.serverResponseLost, "changes/zone said more is coming but did not move the sync token")
            }
            merged.add(page)
            guard page.moreComing, merged.count < limit else { return merged.changes(endingAt: page) }
            // NB: nothing was sent ahead (the request is still the one just read), or it was sent from
            // a token the decoded page does not confirm: ask from the decoded token.
            if request.token != page.changeToken {
                request.cancel()
                request = PageRequest(self, zoneID, since: page.changeToken, desiredKeys: desiredKeys)
            }
        }
    }
}

/// One `changes/zone` request under way in its own task: its answer's body, not yet decoded.
private struct PageRequest {
    /// The token the page is asked for with.
    let token: SyncToken?
    private let task: Task<Data, any Error>

    init(_ database: Database, _ zoneID: ZoneID, since token: SyncToken?, desiredKeys: [String]?) {
        self.token = token
        task = Task { try await Self.send(database, zoneID, since: token, desiredKeys: desiredKeys) }
    }

    @concurrent
    private static func send(_ database: Database, _ zoneID: ZoneID, since token: SyncToken?, desiredKeys: [String]?) async throws -> Data {
        try await database.zoneChangesBody(zoneID, since: token, desiredKeys: desiredKeys, resultsLimit: nil)
    }

    /// The body, the request cancelled if the waiting task is.
    func body() async throws -> Data {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: { [task] in
            task.cancel()
        }
    }

    func cancel() {
        task.cancel()
    }
}

/// The pages of a zone's changes, merged once the last is read: the latest of each record wins,
/// modification or deletion.
private struct MergedZoneChanges {
    /// Changes read, each page's entries counted.
    private(set) var count = 0
    private var pages: [Database.RecordZoneChanges] = []

    mutating func add(_ page: Database.RecordZoneChanges) {
        pages.append(page)
        count += page.modificationResultsByID.count + page.deletions.count
    }

    /// The merged changes, ending where `page` (the last one read) ends.
    func changes(endingAt page: Database.RecordZoneChanges) -> Database.RecordZoneChanges {
        // NB: one dictionary of the final size; growing it page by page rehashed every record ID
        // (three strings) at each doubling, a twentieth of a long fetch's CPU.
        var modifications = pages.count == 1 ? page.modificationResultsByID : Dictionary(minimumCapacity: count)
        var deleted: [RecordID: Database.Deletion] = [:]
        for merged in pages {
            if pages.count > 1 {
                for (id, result) in merged.modificationResultsByID {
                    modifications[id] = result
                    if !deleted.isEmpty { deleted[id] = nil }
                }
            }
            for deletion in merged.deletions {
                modifications[deletion.recordID] = nil
                deleted[deletion.recordID] = deletion
            }
        }
        return Database.RecordZoneChanges(
            modificationResultsByID: modifications, deletions: deleted.values.sorted { $0.recordID.recordName < $1.recordID.recordName },
            changeToken: page.changeToken, moreComing: page.moreComing)
    }
}
