public import Foundation
public import StratusClient

/// What a server that compacts its change log (as CloudKit does) answers, for tests of a client
/// against one: the Stratus server never compacts, so tests make its answers look so.
///
/// A token older than the compaction is refused as expired; the fetch from no token that follows
/// lists the records, but no tombstones (compacted with the log).
///
/// ```swift
/// import StratusClient
/// import StratusTesting
///
/// func compacting(_ request: TransportRequest, expired: Bool, through inner: any HTTPTransport) async throws -> TransportResponse {
///     if expired { return CompactedChangeLog.expiredTokenAnswer }
///     var answer = try await inner.send(request)
///     answer.body = try CompactedChangeLog.withoutTombstones(answer.body)
///     return answer
/// }
/// ```
public enum CompactedChangeLog {
    /// `BAD_REQUEST`: the sync token has expired (the SDK's `changeTokenExpired`), naming no lost data.
    public static var expiredTokenAnswer: TransportResponse {
        let body = #"{"uuid":"compacted","serverErrorCode":"BAD_REQUEST","reason":"the sync token has expired; fetch again without a token to resync"}"#
        return TransportResponse(status: 400, headers: [HTTPHeaderField("Content-Type", "application/json")], body: Data(body.utf8))
    }

    /// A `changes/zone` answer without its tombstones (`"deleted": true` entries of each zone's records).
    ///
    /// - Parameter body: The answer's body.
    /// - Returns: The body without tombstones; the body itself when it is not a page of changes.
    /// - Throws: When the body is not JSON.
    public static func withoutTombstones(_ body: Data) throws -> Data {
        guard var answer = try JSONSerialization.jsonObject(with: body) as? [String: Any], let zones = answer["zones"] as? [[String: Any]] else {
            return body
        }
        answer["zones"] = zones.map { zone in
            var zone = zone
            if let records = zone["records"] as? [[String: Any]] {
                zone["records"] = records.filter { $0["deleted"] as? Bool != true }
            }
            return zone
        }
        return try JSONSerialization.data(withJSONObject: answer)
    }
}
