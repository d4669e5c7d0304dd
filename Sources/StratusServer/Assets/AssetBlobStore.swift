public import Foundation

/// Where asset bytes live, content-addressed by key: a directory (``AssetFileStore``) today,
/// an S3-compatible bucket tomorrow. Every node of a cluster must reach the same one.
///
/// The service drives it from inside store transactions: an upload, written to a file of
/// ``uploadDirectory`` as it arrives, is staged, then
/// installed in the transaction that records the content (or discarded if it fails); a
/// collection trashes the content in the transaction that forgets it, then empties the
/// trash after the commit (or restores it if the commit fails). The store's row locks on
/// the content key order these steps across nodes (Documentation/0008-postgres.md).
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.assets.blobStore = try AssetFileStore(directory: URL(fileURLWithPath: "/srv/stratus-assets"))
/// ```
public protocol AssetBlobStore: Sendable {
    /// A directory on local disk where an upload is written as it arrives (``AssetUpload``), before
    /// ``stage(file:)`` takes it: on the same file system as the store, so taking it is a rename.
    var uploadDirectory: URL { get }

    /// Takes a complete upload written in ``uploadDirectory`` as bytes not yet visible under any key.
    func stage(file: URL) throws -> AssetBlobLocation

    /// Makes staged bytes the content of `key`, or drops them when `key` already has content.
    func install(_ staged: AssetBlobLocation, key: String) throws

    /// Drops staged bytes that will not be installed.
    func discard(_ staged: AssetBlobLocation)

    /// The content of `key`.
    func read(key: String) throws -> Data

    /// Whether `key` has content.
    func contains(key: String) -> Bool

    /// Moves the content of `key` aside; returns where, or `nil` when there was none.
    func trash(key: String) throws -> AssetBlobLocation?

    /// Puts trashed content back under `key` (its removal did not commit).
    func restore(_ trashed: AssetBlobLocation, key: String)

    /// Deletes trashed content for good.
    func empty(_ trashed: [AssetBlobLocation])
}

/// Staged or trashed bytes in an ``AssetBlobStore``: a path, or an object name.
public struct AssetBlobLocation: Hashable, Sendable {
    /// The store's name for the bytes.
    public var location: String

    /// Creates a location.
    public init(_ location: String) {
        self.location = location
    }
}
