import Foundation

/// One thing a sync moved or decided, reported as it happens (``DocumentsContainer/Configuration/onActivity``).
///
/// ```swift
/// import StratusDocuments
///
/// var configuration = DocumentsContainer.Configuration()
/// configuration.onActivity = { activity in print(activity) }   // "↑ notes/todo.txt (1.2 KB)"
/// ```
public enum DocumentsActivity: Sendable, Hashable, CustomStringConvertible {
    /// A local document was uploaded (`bytes` of new content actually sent).
    case uploaded(path: String, bytes: Int64)
    /// A document's new content was downloaded (`bytes` fetched from the server).
    case downloaded(path: String, bytes: Int64)
    /// A document was renamed or moved (locally or remotely).
    case renamed(from: String, to: String)
    /// A document was deleted on the server after a local deletion.
    case deletedRemotely(path: String)
    /// A local file was deleted after a remote deletion.
    case deletedLocally(path: String)
    /// A remote document is known but not downloaded (a placeholder).
    case placeholder(path: String, size: Int64)
    /// Two devices changed a document: `device`'s version was kept as a conflict version.
    case conflict(path: String, device: String)
    /// A conflict was resolved and the other versions removed.
    case resolved(path: String)
    /// A document deleted on another device was kept here, because it changed here since the last sync;
    /// it uploads again as a document of its own.
    case kept(path: String)
    /// Something at `path` is not synced this time, and why: a file or folder that cannot be read, a
    /// symbolic link where a document goes. It is retried at every sync; nothing is deleted because of it.
    case skipped(path: String, reason: String)
    /// The server no longer has documents this device synced (its data was lost or reset, or it is a new
    /// server at the same address): this device uploads what it has again.
    case serverLost(documents: Int)

    /// A one-line, human-readable form: an arrow or mark, the path, and the size.
    public var description: String {
        switch self {
        case .uploaded(let path, let bytes): "↑ \(path) (\(Self.format(bytes)))"
        case .downloaded(let path, let bytes): "↓ \(path) (\(Self.format(bytes)))"
        case .renamed(let from, let to): "→ \(from) → \(to)"
        case .deletedRemotely(let path): "✕ \(path) (deleted on the server)"
        case .deletedLocally(let path): "✕ \(path) (deleted here)"
        case .placeholder(let path, let size): "○ \(path) (\(Self.format(size)), not downloaded)"
        case .conflict(let path, let device): "! \(path): conflict version from \(device)"
        case .resolved(let path): "✓ \(path): conflict resolved"
        case .kept(let path): "↺ \(path) (deleted elsewhere, kept: it changed here)"
        case .skipped(let path, let reason): "⚠ \(path): \(reason); not synced"
        case .serverLost(let count): "! the server lost \(count) of this device's documents; uploading them again"
        }
    }

    static func format(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }
}

/// What one ``DocumentsContainer/sync()`` did.
public struct DocumentsSyncReport: Sendable, Hashable {
    /// Everything moved or decided, in order.
    public var activities: [DocumentsActivity] = []
    /// Asset bytes sent to the server (content that was already there is not sent again).
    public var bytesUploaded: Int64 = 0
    /// Asset bytes fetched from the server.
    public var bytesDownloaded: Int64 = 0
    /// Chunks uploaded (a chunk is at most ``DocumentsContainer/Configuration/chunkSize`` bytes).
    public var chunksUploaded = 0
    /// Chunks downloaded.
    public var chunksDownloaded = 0

    /// Whether the sync moved nothing at all.
    public var isEmpty: Bool { activities.isEmpty && bytesUploaded == 0 && bytesDownloaded == 0 }
}
