public import Foundation

/// A document as the container knows it: path, size, content hash and whether its bytes are here.
///
/// ```swift
/// for document in try await documents.documents() where !document.isDownloaded {
///     try await documents.download(document.path)
/// }
/// ```
public struct DocumentInfo: Sendable, Hashable {
    /// The document's record name on the server (stable across renames).
    public var id: String
    /// The path relative to the container directory, `/`-separated.
    public var path: String
    /// The size in bytes.
    public var size: Int64
    /// The SHA-256 of the content, lowercase hex.
    public var contentHash: String
    /// When the content was last changed (the device's file modification date).
    public var modificationDate: Date
    /// The device that last changed the content.
    public var device: String
    /// Whether the bytes are in the directory; `false` for a placeholder.
    public var isDownloaded: Bool
}

/// One version of a document: the current one, or an unresolved conflict version.
///
/// ```swift
/// let versions = try await documents.unresolvedConflictVersions(of: "notes.txt")
/// for version in versions { print(version.device, version.modificationDate) }
/// try await documents.resolveConflict(keeping: try await documents.currentVersion(of: "notes.txt"))
/// ```
public struct DocumentVersion: Sendable, Hashable {
    /// The version's record name, or the document's for the current version.
    public var id: String
    /// The document's record name.
    public var documentID: String
    /// The document's path when this version was made.
    public var path: String
    /// The size in bytes.
    public var size: Int64
    /// The SHA-256 of the content, lowercase hex.
    public var contentHash: String
    /// The device that wrote this version.
    public var device: String
    /// When this version's content was written.
    public var modificationDate: Date
    /// Whether this is the document's current version (the conflict winner).
    public var isCurrent: Bool
}
