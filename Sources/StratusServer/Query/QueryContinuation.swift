import Foundation
import StratusCrypto
import StratusWire

/// What a `records/query` continuation marker seals: where the page ended and which query it belongs to.
///
/// The marker is a ``TokenCodec`` token of kind `.queryContinuation` over this
/// payload: encrypted and authenticated, so clients can neither read the record
/// name and sort values it holds nor forge or edit it. The fingerprint binds it to
/// one query — the database, the zone selection, the reader's view (its read
/// scope), the record type, filters and sorts — so replaying it with another query
/// or by another reader fails with `BAD_REQUEST` instead of silently skipping
/// records. `resultsLimit`, `desiredKeys` and `numbersAsStrings` may change from
/// page to page.
struct QueryContinuation: Codable, Hashable {
    /// The query's fingerprint.
    var f: String
    /// The last record returned: its sort values, zone row and name.
    var c: QueryCursor

    /// A digest of everything that decides which records a query returns and in what order.
    ///
    /// - Parameters:
    ///   - database: The database queried.
    ///   - zones: `zone:<name>` or `zoneWide`.
    ///   - reader: The reader's view of the record type (``ReadScope/fingerprint``).
    ///   - query: The Query dictionary as the client sent it.
    static func fingerprint(database: DatabaseKey, zones: String, reader: String, query: Query) -> String {
        var text = database.description + "\u{0}" + zones + "\u{0}" + reader + "\u{0}"
        // NB: WireCoding writes canonical JSON (sorted keys), so equal queries encode to equal bytes.
        text += (try? WireCoding.encode(query)).map { String(decoding: $0, as: UTF8.self) } ?? query.recordType
        return String(SHA256.hash(text).hexString.prefix(24))
    }
}
