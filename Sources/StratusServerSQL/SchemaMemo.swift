public import Foundation
public import StratusServer
import Synchronization

/// The last container schema a store decoded, reused while the stored JSON is byte for byte the same.
///
/// Every write transaction reads its container's schema; decoding the stored JSON with
/// `JSONDecoder` each time cost more than a single-record write's SQL (on PostgreSQL ~145 µs of
/// CPU per write). The body is still read from each transaction's snapshot, so a rolled-back or
/// concurrent change — on this node or another — is never served from here: only identical bytes
/// reuse the decoded value. One per store, shared by its transactions; both back ends use it.
///
/// ```swift
/// import Foundation
/// import StratusServer
/// import StratusServerSQL
///
/// let memo = SchemaMemo()
/// let body = try JSONEncoder().encode(Schema())
/// let first = try memo.schema(decoding: body)   // decoded
/// let again = try memo.schema(decoding: body)   // the same bytes: not decoded again
/// print(first == again)
/// ```
public final class SchemaMemo: Sendable {
    private let last = Mutex<(body: Data, schema: Schema)?>(nil)

    /// Creates an empty memo.
    public init() {}

    /// The schema stored as `body`, decoded unless it is the body decoded last.
    ///
    /// - Parameter body: The schema's stored JSON, as read in the caller's transaction.
    /// - Returns: The schema.
    /// - Throws: `DecodingError` when `body` is not a schema.
    public func schema(decoding body: Data) throws -> Schema {
        if let hit = last.withLock({ $0 }), hit.body == body { return hit.schema }
        let schema = try JSONDecoder().decode(Schema.self, from: body)
        last.withLock { $0 = (body, schema) }
        return schema
    }
}
