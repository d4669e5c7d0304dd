public import Foundation

/// Asset bytes on disk, content-addressed: `objects/<2 hex>/<key>` under a directory.
///
/// Files are written to `tmp/` first and renamed into place, so a reader never
/// sees a partial file. Removal renames into `trash/` (inside the store
/// transaction that forgets the content) and deletes after the commit, so a
/// concurrent upload of the same bytes and a collection never race: both
/// renames happen under the store's single writer.
public final class AssetFileStore: Sendable {
    /// The root directory.
    public let directory: URL

    /// Opens (creating if needed) the store under `directory`.
    ///
    /// - Throws: A file-system error when the directories cannot be created.
    public init(directory: URL) throws {
        self.directory = directory
        for name in ["objects", "tmp", "trash"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(name), withIntermediateDirectories: true)
        }
    }

    /// Where the content with `key` lives.
    public func url(forKey key: String) -> URL {
        directory.appendingPathComponent("objects").appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key)
    }

    /// Whether the content is on disk.
    public func contains(key: String) -> Bool {
        FileManager.default.fileExists(atPath: url(forKey: key).path)
    }

    /// Writes bytes to a new temporary file.
    func stage(_ data: Data) throws -> URL {
        let staged = directory.appendingPathComponent("tmp").appendingPathComponent(UUID().uuidString)
        try data.write(to: staged)
        return staged
    }

    /// Moves a staged file into place, or drops it when the same content is already there.
    func install(_ staged: URL, key: String) throws {
        let target = url(forKey: key)
        if FileManager.default.fileExists(atPath: target.path) {
            try? FileManager.default.removeItem(at: staged)
            return
        }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: staged, to: target)
    }

    /// Removes a staged file that will not be installed.
    func discard(_ staged: URL) {
        try? FileManager.default.removeItem(at: staged)
    }

    /// The content's bytes (memory-mapped).
    func read(key: String) throws -> Data {
        try Data(contentsOf: url(forKey: key), options: .alwaysMapped)
    }

    /// Moves the content to the trash; returns where, or `nil` when it was not on disk.
    func trash(key: String) throws -> URL? {
        let source = url(forKey: key)
        guard FileManager.default.fileExists(atPath: source.path) else { return nil }
        let target = directory.appendingPathComponent("trash").appendingPathComponent("\(key).\(UUID().uuidString)")
        try FileManager.default.moveItem(at: source, to: target)
        return target
    }

    /// Puts a trashed content back (its removal did not commit).
    func restore(_ trashed: URL, key: String) {
        try? FileManager.default.moveItem(at: trashed, to: url(forKey: key))
    }

    /// Deletes trashed files for good.
    func empty(_ trashed: [URL]) {
        for file in trashed { try? FileManager.default.removeItem(at: file) }
    }
}
