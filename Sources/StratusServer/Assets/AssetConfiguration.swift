public import Foundation

/// How assets are stored and served.
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.assets.directory = dataDirectory.appendingPathComponent("assets")
/// configuration.assets.maximumSize = 100 << 20
/// ```
public struct AssetConfiguration: Sendable {
    /// Where asset files live; assets are refused (`BAD_REQUEST`) while this and ``blobStore`` are `nil`.
    public var directory: URL?
    /// Where asset bytes live when not in ``directory``: any ``AssetBlobStore`` (such as an
    /// S3-compatible bucket) that every node reaches; takes precedence over ``directory``.
    public var blobStore: (any AssetBlobStore)?
    /// The largest asset in bytes (the upload route's body limit); 50 MB by default.
    public var maximumSize = 50 << 20
    /// How long an upload URL from `assets/upload` works, in milliseconds; 15 minutes like Apple's.
    public var uploadURLLifetime: Int64 = 15 * 60 * 1000
    /// How long a `downloadURL` in a fetched record works, in milliseconds; one hour by default.
    public var downloadURLLifetime: Int64 = 60 * 60 * 1000
    /// How long content that no record references is kept before collection, in milliseconds; one day by default.
    ///
    /// An upload starts the period too, so its receipt can be saved into a record within it.
    public var gracePeriod: Int64 = 24 * 60 * 60 * 1000

    /// The defaults; assets stay off until ``directory`` or ``blobStore`` is set.
    public init() {}
}
