import Foundation
import StratusCrypto

/// Reads a backup archive into a staging folder and checks it against its manifest, before
/// anything is moved into a data directory.
///
/// Entry names come from the archive — an outside file — so each must be one a backup writes
/// (``BackupManifest/isAllowed(_:)``: no paths, no links, no duplicates); staged files are named
/// by the reader, never by the archive. Every file's size and SHA-256 must match the manifest,
/// every asset's bytes must hash to its content key, and nothing may be missing or extra.
enum BackupReader {
    /// The largest manifest read into memory.
    static let maximumManifestSize: Int64 = 64 << 20

    /// Extracts `archive` into `staging` (which must exist and be empty) and returns its manifest.
    ///
    /// - Throws: ``CLIError`` naming the first problem found.
    static func extract(_ archive: URL, into staging: URL) throws -> BackupManifest {
        let reader: FileHandle
        do {
            reader = try FileHandle(forReadingFrom: archive)
        } catch {
            throw CLIError("cannot read the backup \(archive.path): \(error.localizedDescription)")
        }
        defer { try? reader.close() }
        var found: [String: BackupManifest.File] = [:]
        var manifest: BackupManifest?
        while true {
            let block = try reader.read(upToCount: TarArchive.blockSize) ?? Data()
            let parsed: TarArchive.Entry?
            do {
                parsed = try TarArchive.parse(block)
            } catch {
                throw CLIError("\(archive.path) is not a Stratus backup: \(error)")
            }
            guard let entry = parsed else { break }
            guard BackupManifest.isAllowed(entry.name) else {
                throw CLIError("\(archive.path) holds '\(entry.name)', which is not part of a Stratus backup; nothing was restored")
            }
            guard found[entry.name] == nil, !(entry.name == BackupManifest.entryName && manifest != nil) else {
                throw CLIError("\(archive.path) holds '\(entry.name)' twice; nothing was restored")
            }
            if entry.name == BackupManifest.entryName {
                manifest = try readManifest(reader, entry, archive)
            } else {
                found[entry.name] = try stage(reader, entry, into: staging, archive)
            }
        }
        guard let manifest else { throw CLIError("\(archive.path) has no manifest (\(BackupManifest.entryName)): it is incomplete or not a Stratus backup") }
        try check(manifest, against: found, archive)
        return manifest
    }

    /// Where a staged entry lives: `assets/<key>` becomes `asset-<key>`, so no entry makes a folder.
    static func stagedURL(_ name: String, in staging: URL) -> URL {
        staging.appendingPathComponent(name.replacingOccurrences(of: "/", with: "-"))
    }

    private static func readManifest(_ reader: FileHandle, _ entry: TarArchive.Entry, _ archive: URL) throws -> BackupManifest {
        guard entry.size <= maximumManifestSize else { throw CLIError("\(archive.path): the manifest is \(entry.size) bytes, too large") }
        let data = try readExactly(reader, Int(entry.size), archive)
        _ = try readExactly(reader, TarArchive.padding(after: entry.size).count, archive)
        let manifest: BackupManifest
        do {
            manifest = try JSONDecoder().decode(BackupManifest.self, from: data)
        } catch {
            throw CLIError("\(archive.path): the manifest is not valid JSON of a Stratus backup: \(error)")
        }
        guard manifest.format == "stratus-backup" else { throw CLIError("\(archive.path) is not a Stratus backup (format '\(manifest.format)')") }
        guard manifest.version <= 1 else {
            throw CLIError("\(archive.path) is a version \(manifest.version) backup; this stratus reads version 1 — restore it with a newer stratus")
        }
        return manifest
    }

    private static func stage(_ reader: FileHandle, _ entry: TarArchive.Entry, into staging: URL, _ archive: URL) throws -> BackupManifest.File {
        let target = stagedURL(entry.name, in: staging)
        guard FileManager.default.createFile(atPath: target.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("cannot write \(target.path)")
        }
        let writer = try FileHandle(forWritingTo: target)
        defer { try? writer.close() }
        var hash = SHA256()
        var remaining = entry.size
        while remaining > 0 {
            let piece = try readExactly(reader, Int(min(remaining, 1 << 20)), archive)
            hash.update(piece)
            try writer.write(contentsOf: piece)
            remaining -= Int64(piece.count)
        }
        _ = try readExactly(reader, TarArchive.padding(after: entry.size).count, archive)
        return .init(name: entry.name, size: entry.size, sha256: hash.finalize().hexString)
    }

    private static func readExactly(_ reader: FileHandle, _ count: Int, _ archive: URL) throws -> Data {
        guard count > 0 else { return Data() }
        let data = try reader.read(upToCount: count) ?? Data()
        guard data.count == count else { throw CLIError("\(archive.path) ends in the middle of an entry: the backup is truncated") }
        return data
    }

    private static func check(_ manifest: BackupManifest, against found: [String: BackupManifest.File], _ archive: URL) throws {
        let listed = Dictionary(manifest.files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (name, file) in found where listed[name] != file {
            throw CLIError("\(archive.path): '\(name)' does not match the manifest (damaged, or added after the backup was written)")
        }
        if let missing = listed.keys.first(where: { found[$0] == nil }) {
            throw CLIError("\(archive.path): '\(missing)' is in the manifest but not in the archive")
        }
        let databaseEntry = manifest.database == "postgres" ? PostgresBackup.dumpEntry : BackupManifest.databaseEntry
        guard found[databaseEntry] != nil else { throw CLIError("\(archive.path) holds no database") }
        for name in found.keys where name.hasPrefix(BackupManifest.assetPrefix) {
            let key = String(name.dropFirst(BackupManifest.assetPrefix.count))
            guard found[name]?.sha256.hasPrefix(key) == true else {
                throw CLIError("\(archive.path): the asset \(key) does not hash to its own key; the archive is damaged")
            }
        }
    }
}
