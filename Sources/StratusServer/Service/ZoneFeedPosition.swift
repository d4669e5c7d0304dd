/// The position a zone sync token names: which incarnation of which zone, and how far into its change log.
///
/// Sealed by the service's token codec (kind `zoneSync`). A token is accepted only by the zone
/// incarnation that issued it — the same row *and* the same creation time, so a zone deleted and
/// made again, or a database recreated (its rows numbered from 1 again) under the same token
/// secret, never matches an old token — and only for a sequence the zone has reached: a token
/// from the future (the database was restored from an earlier backup) is refused as expired, so the
/// client refetches instead of silently missing every change made since (Documentation/0002).
struct ZoneFeedPosition: Codable, Hashable {
    /// The zone's row.
    var z: Int64
    /// The zone's incarnation: its creation time in milliseconds (absent in tokens from before it was added).
    var i: Int64?
    /// The last change sequence the client has.
    var s: Int64
    /// The filtered view of the zone that issued the token (a participant's record shares), if any.
    var r: String? = nil

    /// The position `sequence` of `zone`.
    init(zone: ZoneRow, sequence: Int64, scope: String?) {
        z = zone.rowID
        i = zone.createdAt
        s = sequence
        r = scope
    }

    /// Why `zone` cannot serve changes after this position, or `nil` when it can.
    ///
    /// - Parameter zone: The zone the request names, as the store holds it now.
    /// - Returns: The reason for a `BAD_REQUEST` (the client's `changeTokenExpired`), naming the zone.
    func refusal(by zone: ZoneRow) -> String? {
        if z != zone.rowID || i != zone.createdAt {
            return "the sync token belongs to another zone, or to an earlier zone named '\(zone.zoneName)' that was deleted; "
                + "fetch again without a token to resync"
        }
        if s > zone.changeSequence {
            return "the sync token names change \(s) of zone '\(zone.zoneName)', which has reached only \(zone.changeSequence) "
                + "(the database was restored from an earlier state); the token has expired: fetch again without a token to resync"
        }
        return nil
    }
}
