/// What changed in the directory since the last sync, from the files on disk and the synced state.
///
/// A pure function of its inputs (hashing is passed in): files whose size, inode and modification
/// time match their row are unchanged without reading them; a vanished row and a new file are paired
/// as a rename by an inotify move hint, else by inode, else by content hash; what stays unpaired is a
/// creation or a deletion. Placeholders are never "vanished" (they have no file).
enum LocalChangeDetector {
    enum Change: Sendable, Equatable {
        /// A new file.
        case created(DiskEntry, FileDigest)
        /// A synced file with new content.
        case modified(LocalDocument, DiskEntry, FileDigest)
        /// A synced file at a new path; the digest is set when the content changed too.
        case renamed(LocalDocument, DiskEntry, FileDigest?)
        /// A synced file that is gone.
        case deleted(LocalDocument)
        /// Metadata changed but the content did not (only the row's inode/mtime need updating).
        case touched(LocalDocument, DiskEntry)
    }

    /// The changes between `disk` and `known`.
    ///
    /// - Parameters:
    ///   - disk: The files found (at most one per name under ``DocumentPath/key(_:)``; extra spellings are
    ///     ignored here, the caller settles them first).
    ///   - known: The state rows.
    ///   - moves: inotify rename hints, old path → new path.
    ///   - digest: Hashes a file; `nil` when it cannot be read now (it is neither new, changed nor gone).
    static func changes(
        disk: [DiskEntry], known: [LocalDocument], moves: [String: String], digest: (DiskEntry) throws -> FileDigest?
    ) throws -> [Change] {
        var changes: [Change] = []
        let byPath = Dictionary(known.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        var seenKeys = Set<String>()
        let disk = disk.filter { seenKeys.insert(DocumentPath.key($0.path)).inserted }
        let onDisk = Set(disk.map(\.path))
        var vanished = known.filter { $0.downloaded && !onDisk.contains($0.path) }
        var fresh: [DiskEntry] = []
        for entry in disk {
            guard let row = byPath[entry.path] else {
                fresh.append(entry)
                continue
            }
            if let change = try change(of: row, to: entry, digest: digest) { changes.append(change) }
        }
        for entry in fresh {
            let hinted = vanished.firstIndex { moves[$0.path] == entry.path }
            let sameInode = vanished.firstIndex { $0.inode == entry.inode && $0.record.size == entry.size && $0.mtimeNs == entry.mtimeNs }
            if let index = hinted ?? sameInode {
                let row = vanished[index]
                let unchanged = row.record.size == entry.size && row.mtimeNs == entry.mtimeNs && row.inode == entry.inode
                if unchanged {
                    vanished.remove(at: index)
                    changes.append(.renamed(row, entry, nil))
                } else if let content = try digest(entry) {
                    vanished.remove(at: index)
                    let seen = content.observed ?? entry
                    changes.append(.renamed(row, seen, content.contentHash == row.record.contentHash ? nil : content))
                }
                continue
            }
            guard let content = try digest(entry) else { continue }
            let seen = content.observed ?? entry
            if let index = vanished.firstIndex(where: { $0.record.contentHash == content.contentHash && $0.record.size == seen.size }) {
                changes.append(.renamed(vanished.remove(at: index), seen, nil))
            } else {
                changes.append(.created(seen, content))
            }
        }
        changes += vanished.map { .deleted($0) }
        return changes
    }

    /// What happened to the file of `row`, found at `entry` (the same name, perhaps another spelling).
    private static func change(of row: LocalDocument, to entry: DiskEntry, digest: (DiskEntry) throws -> FileDigest?) throws -> Change? {
        let respelled = !DocumentPath.sameSpelling(row.path, entry.path)
        if row.matches(entry) {
            if respelled { return .renamed(row, entry, nil) }
            // Not confirmed by the server yet: it uploads again, with the digest it was saved with.
            if row.isPending { return .modified(row, entry, FileDigest(contentHash: row.record.contentHash, chunkHashes: row.record.chunkHashes)) }
            return nil
        }
        guard let content = try digest(entry) else { return nil }
        let seen = content.observed ?? entry
        let sameContent = content.contentHash == row.record.contentHash && row.downloaded
        if respelled { return .renamed(row, seen, sameContent ? nil : content) }
        if sameContent, !row.isPending { return .touched(row, seen) }
        return .modified(row, seen, content)
    }
}
