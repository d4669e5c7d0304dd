import Foundation
import StratusClient
import StratusCrypto
import StratusLogging
import StratusWire

extension DocumentsContainer {
    /// Applies the reserved zone's changes since the stored token; the token moves only when all applied.
    func fetchChanges(into report: inout DocumentsSyncReport) async throws {
        let token = try state.meta("token").map(SyncToken.init(rawValue:))
        let changes: Database.RecordZoneChanges
        do {
            changes = try await database.allRecordZoneChanges(inZoneWith: DocumentRecord.zoneID(), since: token)
        } catch let error as StratusError where error.code == .changeTokenExpired {
            try state.setMeta("token", nil)
            changes = try await database.allRecordZoneChanges(inZoneWith: DocumentRecord.zoneID(), since: nil)
        }
        var failure: (any Error)?
        tokenHeld = false
        var documents: [DocumentRecord] = []
        var versions: [DocumentRecord] = []
        for (id, result) in changes.modificationResultsByID.sorted(by: { $0.key.recordName < $1.key.recordName }) {
            do {
                let record = try decoded(try result.get())
                if record.isVersion { versions.append(record) } else { documents.append(record) }
            } catch {
                // A malformed or unsafe record (a path with '..', an absurd size…) is never applied; the rest are.
                configuration.logger.warning("skipping record '\(DocumentPath.printable(id.recordName))': \(error)")
            }
        }
        defer { discardPrefetched() }
        try await prefetch(documents)
        var colliding: [DocumentRecord] = []
        for record in documents.sorted(by: { $0.path < $1.path }) {
            do {
                if try holder(of: record.path, other: record.recordName) != nil {
                    colliding.append(record)  // settled after the moves and deletions that may free the path
                } else {
                    try await apply(record, into: &report)
                }
            } catch {
                configuration.logger.warning("cannot apply '\(record.path)': \(error)")
                failure = failure ?? error
            }
        }
        for deletion in changes.deletions {
            try applyDeletion(of: deletion.recordID.recordName, into: &report)
        }
        for record in colliding {
            do {
                try await settleCollision(record, into: &report)
            } catch {
                configuration.logger.warning("cannot settle two documents at '\(record.path)': \(error)")
                failure = failure ?? error
            }
        }
        for record in versions {
            let known = try state.versions().first { $0.record.recordName == record.recordName }
            if known == nil { announce(.conflict(path: record.path, device: record.device), into: &report) }
            try state.save(LocalVersion(record: record, uploaded: true, downloaded: known?.downloaded ?? false))
        }
        if let failure { throw failure }
        // A change skipped because the local file changed meanwhile comes again with the next fetch.
        if !tokenHeld { try state.setMeta("token", changes.changeToken.rawValue) }
    }

    /// Applies one changed `Document` record: a move, a download, or a placeholder.
    func apply(_ record: DocumentRecord, into report: inout DocumentsSyncReport) async throws {
        let row = try state.document(named: record.recordName)
        if let row, row.record.changeTag == record.changeTag { return }
        if let row, row.downloaded {
            guard let entry = tree.entry(row.path), row.matches(entry) else {
                tokenHeld = true  // changed here since the scan: the next sync uploads it (a conflict), then applies this
                return
            }
        }
        if try holder(of: record.path, other: record.recordName) != nil {
            throw DocumentsError(.badRecord, "another document holds this path", path: record.path)
        }
        if let row, row.record.contentHash == record.contentHash, row.downloaded {
            var moved = row
            if row.path != record.path {
                do {
                    try coordinator.write(row.path, record.path) { try tree.move(row.path, to: record.path) }
                } catch let error as DocumentsError where error.code == .pathBlocked {
                    return try keepAsPlaceholder(record, because: error, into: &report)
                }
                removeEmptyFolders(above: row.path)
                announce(.renamed(from: row.path, to: record.path), into: &report)
            }
            let entry = tree.entry(record.path)
            moved.record = record
            moved.inode = entry?.inode
            moved.mtimeNs = entry?.mtimeNs
            try state.save(moved)
            return
        }
        if row?.downloaded == true || configuration.downloadsEagerly {
            let bytes: (bytes: Int64, chunks: Int)
            do {
                bytes = try await install(record, replacing: row, progress: nil)
            } catch let error as DocumentsError where error.code == .pathBlocked {
                return try keepAsPlaceholder(record, because: error, into: &report)
            }
            report.bytesDownloaded += bytes.bytes
            report.chunksDownloaded += bytes.chunks
            if let row, row.path != record.path { announce(.renamed(from: row.path, to: record.path), into: &report) }
            announce(.downloaded(path: record.path, bytes: bytes.bytes), into: &report)
        } else {
            try state.save(LocalDocument(record: record, downloaded: false, inode: nil, mtimeNs: nil))
            announce(.placeholder(path: record.path, size: record.size), into: &report)
        }
    }

    /// A document whose place is blocked here (a folder, or a symbolic link on the way) stays a
    /// placeholder, so the sync goes on; a file it was at stays too, and uploads as a new document.
    private func keepAsPlaceholder(_ record: DocumentRecord, because error: DocumentsError, into report: inout DocumentsSyncReport) throws {
        configuration.logger.warning("'\(record.path)' stays a placeholder: \(error.message)")
        try state.save(LocalDocument(record: record, downloaded: false, inode: nil, mtimeNs: nil))
        announce(.placeholder(path: record.path, size: record.size), into: &report)
    }

    /// A document or version record was deleted on the server.
    private func applyDeletion(of recordName: String, into report: inout DocumentsSyncReport) throws {
        if let version = try state.versions().first(where: { $0.record.recordName == recordName }) {
            try state.removeVersion(named: recordName)
            VersionCopies.remove(recordName, in: versionsFolder)
            if try state.versions().contains(where: { $0.record.document == version.record.document }) == false {
                announce(.resolved(path: version.record.path), into: &report)
            }
            return
        }
        guard let row = try state.document(named: recordName) else { return }
        if row.downloaded {
            coordinator.write(row.path) {
                // A file edited since the last sync stays, and uploads as a new document next time.
                _ = tree.removeFile(row.path) { row.matches($0) }
            }
            removeEmptyFolders(above: row.path)
        }
        try state.removeDocument(named: recordName)
        try removeVersions(of: recordName)
        announce(.deletedLocally(path: row.path), into: &report)
    }

    /// Puts a document's content in place: fetched into `.stratus/tmp` (or taken from this sync's
    /// prefetch), then renamed over the target.
    ///
    /// The rename happens under the write lock and only if the local file still matches the state row
    /// (not edited since the last sync); otherwise, or on any failure, the temporary file is deleted and
    /// the old file is untouched.
    func install(
        _ record: DocumentRecord, replacing row: LocalDocument?, progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws -> (bytes: Int64, chunks: Int) {
        let fetched: FetchedContent
        if let ready = prefetched.removeValue(forKey: PrefetchKey(record)) {
            fetched = try ready.get()
        } else {
            fetched = try await fetcher.fetch(record, reusing: row, progress: progress)
        }
        let temporary = fetched.file
        defer { try? FileManager.default.removeItem(at: temporary) }
        let target = record.path
        let previous = row?.downloaded == true ? row?.path : nil
        let replaced: Bool = try coordinator.write(target, previous ?? target) {
            if let row, let previous {
                guard let entry = tree.entry(previous), row.matches(entry) else { return false }
            } else if previous == nil, tree.entry(target) != nil {
                return false  // a local file took the path meanwhile; the next sync uploads it against this version
            }
            try tree.install(temporary, at: target)
            if let previous, previous != target { tree.removeFile(previous) }
            return true
        }
        guard replaced else {
            tokenHeld = true
            return (0, 0)
        }
        if let previous, previous != target { removeEmptyFolders(above: previous) }
        let entry = tree.entry(target)
        try state.save(LocalDocument(record: record, downloaded: true, inode: entry?.inode, mtimeNs: entry?.mtimeNs))
        return (fetched.bytes, fetched.chunks)
    }

    /// Downloads, a few at a time, the content of every record this fetch will install; ``install(_:replacing:progress:)``
    /// then takes the files in order. Leftovers (records that turned out not to need them) are deleted by the caller.
    func prefetch(_ records: [DocumentRecord]) async throws {
        var wanted: [(DocumentRecord, LocalDocument?)] = []
        for record in records {
            let row = try state.document(named: record.recordName)
            if let row, row.record.changeTag == record.changeTag || (row.downloaded && row.record.contentHash == record.contentHash) { continue }
            guard row?.downloaded == true || configuration.downloadsEagerly, !record.chunkHashes.isEmpty else { continue }
            wanted.append((record, row))
        }
        guard !wanted.isEmpty else { return }
        let fetcher = self.fetcher
        let lanes = max(1, configuration.concurrentTransfers)
        let results = await withTaskGroup(of: [(PrefetchKey, Result<FetchedContent, any Error>)].self) { group in
            for lane in 0..<lanes {
                let mine = stride(from: lane, to: wanted.count, by: lanes).map { wanted[$0] }
                group.addTask {
                    var done: [(PrefetchKey, Result<FetchedContent, any Error>)] = []
                    for (record, row) in mine {
                        do {
                            done.append((PrefetchKey(record), .success(try await fetcher.fetch(record, reusing: row, progress: nil))))
                        } catch {
                            done.append((PrefetchKey(record), .failure(error)))
                        }
                    }
                    return done
                }
            }
            var all: [(PrefetchKey, Result<FetchedContent, any Error>)] = []
            for await done in group { all += done }
            return all
        }
        for (key, result) in results { prefetched[key] = result }
    }

    /// Deletes prefetched files nobody installed.
    func discardPrefetched() {
        for result in prefetched.values {
            if case .success(let content) = result { try? FileManager.default.removeItem(at: content.file) }
        }
        prefetched = [:]
    }

    /// Removes folders left empty by a move or deletion, up to the container directory.
    func removeEmptyFolders(above path: String) {
        tree.removeEmptyFolders(above: path)
    }

    /// Downloads a placeholder (or refreshes a document) now, with progress.
    ///
    /// ```swift
    /// try await documents.download("Videos/talk.mp4") { progress in print(progress.fractionCompleted) }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The document path.
    ///   - progress: Called after each chunk is in the temporary file.
    /// - Throws: ``DocumentsError/Code/notFound`` for an unknown path, ``DocumentsError/Code/pathBlocked`` when a
    ///   folder or a symbolic link is in the document's way here, ``DocumentsError/Code/invalidPath`` or
    ///   ``DocumentsError/Code/badRecord`` for an unsafe record; `StratusError` from the server.
    public func download(_ path: String, progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws {
        let path = try DocumentPath.validate(path)
        try await serialized {
            guard let row = try self.state.document(atPath: path) else {
                throw DocumentsError(.notFound, "no document at this path", path: path)
            }
            if row.downloaded { return }
            let fresh = try self.decoded(try await self.database.record(for: row.record.recordID))
            _ = try await self.install(fresh, replacing: nil, progress: progress)
        }
    }
}
