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

    static func changes(
        disk: [DiskEntry], known: [LocalDocument], moves: [String: String], digest: (DiskEntry) throws -> FileDigest
    ) throws -> [Change] {
        var changes: [Change] = []
        let byPath = Dictionary(known.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let onDisk = Set(disk.map(\.path))
        var vanished = known.filter { $0.downloaded && !onDisk.contains($0.path) }
        var fresh: [DiskEntry] = []
        for entry in disk {
            guard let row = byPath[entry.path] else {
                fresh.append(entry)
                continue
            }
            if row.matches(entry) { continue }
            let content = try digest(entry)
            if content.contentHash == row.record.contentHash, row.downloaded {
                changes.append(.touched(row, entry))
            } else {
                changes.append(.modified(row, entry, content))
            }
        }
        var digests: [String: FileDigest] = [:]
        for entry in fresh {
            let hinted = vanished.firstIndex { moves[$0.path] == entry.path }
            let sameInode = vanished.firstIndex { $0.inode == entry.inode && $0.record.size == entry.size && $0.mtimeNs == entry.mtimeNs }
            if let index = hinted ?? sameInode {
                let row = vanished.remove(at: index)
                let unchanged = row.record.size == entry.size && row.mtimeNs == entry.mtimeNs && row.inode == entry.inode
                if unchanged {
                    changes.append(.renamed(row, entry, nil))
                } else {
                    let content = try digest(entry)
                    changes.append(.renamed(row, entry, content.contentHash == row.record.contentHash ? nil : content))
                }
                continue
            }
            let content = try digest(entry)
            digests[entry.path] = content
            if let index = vanished.firstIndex(where: { $0.record.contentHash == content.contentHash && $0.record.size == entry.size }) {
                changes.append(.renamed(vanished.remove(at: index), entry, nil))
            } else {
                changes.append(.created(entry, content))
            }
        }
        changes += vanished.map { .deleted($0) }
        return changes
    }
}
