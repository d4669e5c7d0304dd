public import Foundation

/// Asset bytes on disk, content-addressed: `objects/<2 hex>/<key>` under a directory, which
/// several nodes may share (`stratus serve --assets-directory`, e.g. an NFS mount).
///
/// Files are written to `tmp/` first and renamed into place, so a reader never
/// sees a partial file. Removal renames into `trash/` (inside the store
/// transaction that forgets the content) and deletes after the commit, so a
/// concurrent upload of the same bytes and a collection never race: both
/// renames happen under the store's lock on the content (SQLite's single writer,
/// PostgreSQL's row lock on the content key).
///
/// ```swift
/// let files = try AssetFileStore(directory: URL(fileURLWithPath: "/srv/stratus-assets"))
/// let staged = try files.stage(file: upload)
/// ```
public final class AssetFileStore: AssetBlobStore {
    /// The root directory.
    public let directory: URL

    /// Opens (creating if needed) the store under `directory`.
    ///
    /// Folders this store creates are `0700` and files `0600`: asset bytes are users' private
    /// data, readable by the server's user only. (A `directory` that exists keeps its own
    /// permissions: an operator may share it between nodes on purpose.)
    ///
    /// - Throws: A file-system error when the directories cannot be created.
    public init(directory: URL) throws {
        self.directory = directory
        for name in ["objects", "tmp", "trash"] {
            try Self.createPrivateDirectory(directory.appendingPathComponent(name))
        }
    }

    /// The permissions of the folders this store creates.
    static let directoryPermissions = 0o700
    /// The permissions of the files this store writes.
    static let filePermissions = 0o600

    private static func createPrivateDirectory(_ url: URL) throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: directoryPermissions])
    }

    /// Where the content with `key` lives.
    public func url(forKey key: String) -> URL {
        directory.appendingPathComponent("objects").appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key)
    }

    /// Whether the content is on disk.
    public func contains(key: String) -> Bool {
        FileManager.default.fileExists(atPath: url(forKey: key).path)
    }

    /// `tmp/` under the root: uploads are written there as they arrive.
    public var uploadDirectory: URL { directory.appendingPathComponent("tmp") }

    /// Takes an upload written in ``uploadDirectory`` as it is: it is already staged there.
    public func stage(file: URL) throws -> AssetBlobLocation {
        AssetBlobLocation(file.path)
    }

    /// Moves a staged file into place, or drops it when the same content is already there.
    public func install(_ staged: AssetBlobLocation, key: String) throws {
        let target = url(forKey: key)
        if FileManager.default.fileExists(atPath: target.path) {
            discard(staged)
            return
        }
        try Self.createPrivateDirectory(target.deletingLastPathComponent())
        try FileManager.default.moveItem(atPath: staged.location, toPath: target.path)
    }

    /// Removes a staged file that will not be installed.
    public func discard(_ staged: AssetBlobLocation) {
        try? FileManager.default.removeItem(atPath: staged.location)
    }

    /// The content's bytes (memory-mapped).
    public func read(key: String) throws -> Data {
        try Data(contentsOf: url(forKey: key), options: .alwaysMapped)
    }

    /// Moves the content to the trash; returns where, or `nil` when it was not on disk.
    public func trash(key: String) throws -> AssetBlobLocation? {
        let source = url(forKey: key)
        guard FileManager.default.fileExists(atPath: source.path) else { return nil }
        let target = directory.appendingPathComponent("trash").appendingPathComponent("\(key).\(UUID().uuidString)")
        try FileManager.default.moveItem(at: source, to: target)
        return AssetBlobLocation(target.path)
    }

    /// Puts a trashed content back (its removal did not commit).
    public func restore(_ trashed: AssetBlobLocation, key: String) {
        try? FileManager.default.moveItem(atPath: trashed.location, toPath: url(forKey: key).path)
    }

    /// Deletes trashed files for good.
    public func empty(_ trashed: [AssetBlobLocation]) {
        for file in trashed { try? FileManager.default.removeItem(atPath: file.location) }
    }
}
