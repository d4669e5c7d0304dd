import Foundation
import StratusCrypto

/// Writes a backup archive: entries streamed from files, hashed on the way, the manifest last.
///
/// The archive is written to `<file>.partial` (mode 0600: it holds password hashes and the token
/// secret) and renamed into place only when complete, so a failed backup never leaves a
/// truncated archive under the name a restore would read.
final class BackupWriter {
    private let handle: FileHandle
    private let partial: URL
    private let destination: URL
    private var files: [BackupManifest.File] = []
    private var names: Set<String> = []

    init(destination: URL) throws {
        self.destination = destination
        partial = destination.appendingPathExtension("partial")
        try? FileManager.default.removeItem(at: partial)
        guard FileManager.default.createFile(atPath: partial.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("cannot write the backup to \(partial.path)")
        }
        handle = try FileHandle(forWritingTo: partial)
    }

    /// Appends the file at `source` under `name`, reading it in 1 MiB pieces.
    func add(_ source: URL, as name: String) throws {
        precondition(BackupManifest.isAllowed(name) && !names.contains(name), "backup entry \(name)")
        let size = try Int64((FileManager.default.attributesOfItem(atPath: source.path)[.size] as? NSNumber)?.int64Value ?? 0)
        let reader = try FileHandle(forReadingFrom: source)
        defer { try? reader.close() }
        try handle.write(contentsOf: TarArchive.header(name: name, size: size, modified: Date()))
        var hash = SHA256()
        var written: Int64 = 0
        while let piece = try reader.read(upToCount: 1 << 20), !piece.isEmpty {
            guard written + Int64(piece.count) <= size else { break }
            hash.update(piece)
            try handle.write(contentsOf: piece)
            written += Int64(piece.count)
        }
        guard written == size else { throw CLIError("\(source.path) changed size while it was backed up (\(size) → \(written) bytes)") }
        try handle.write(contentsOf: TarArchive.padding(after: size))
        files.append(.init(name: name, size: size, sha256: hash.finalize().hexString))
        names.insert(name)
    }

    /// Writes the manifest and the trailer, and moves the archive into place.
    func finish(createdAt: Date, database: String) throws -> BackupManifest {
        let manifest = BackupManifest(createdAt: ISO8601DateFormatter().string(from: createdAt), database: database, files: files)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = try encoder.encode(manifest)
        try handle.write(contentsOf: TarArchive.header(name: BackupManifest.entryName, size: Int64(json.count), modified: createdAt))
        try handle.write(contentsOf: json)
        try handle.write(contentsOf: TarArchive.padding(after: Int64(json.count)))
        try handle.write(contentsOf: TarArchive.trailer)
        try handle.synchronize()
        try handle.close()
        _ = try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: partial, to: destination)
        return manifest
    }

    /// Removes the partial archive after a failure.
    func abandon() {
        try? handle.close()
        try? FileManager.default.removeItem(at: partial)
    }
}
