import Foundation
import StratusClient
import StratusCrypto
import StratusLogging
import StratusWire

extension DocumentsContainer {
    /// Applies the reserved zone's changes since the stored token; the token moves only when all applied.
    func fetchChanges(into report: inout DocumentsSyncReport) async throws {
        let changes = try await zoneChanges()
        var failure: (any Error)?
        tokenHeld = false
        let (documents, versions) = decodedRecords(of: changes)
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
        if try state.meta("token") == nil {
            let listed = changes.modificationResultsByID.keys.map(\.recordName) + changes.deletions.map(\.recordID.recordName)
            try reclaimDocumentsMissing(from: Set(listed), into: &report)
        }
        if let failure { throw failure }
        // A change skipped because the local file changed meanwhile comes again with the next fetch.
        if !tokenHeld { try state.setMeta("token", changes.changeToken.rawValue) }
    }

    /// The zone's changes since the stored token; everything again when the server refuses the token.
    private func zoneChanges() async throws -> Database.RecordZoneChanges {
        let token = try state.meta("token").map(SyncToken.init(rawValue:))
        do {
            return try await database.allRecordZoneChanges(inZoneWith: DocumentRecord.zoneID(), since: token)
        } catch let error as StratusError where token != nil && [.changeTokenExpired, .invalidArguments].contains(error.code) {
            // An expired token, or one this server never issued (a new server at this address): fetch everything.
            configuration.logger.info("fetching every document again: \(error)")
            try state.setMeta("token", nil)
            return try await database.allRecordZoneChanges(inZoneWith: DocumentRecord.zoneID(), since: nil)
        }
    }

    /// The changed records, checked, by record name: documents and conflict versions apart.
    private func decodedRecords(of changes: Database.RecordZoneChanges) -> (documents: [DocumentRecord], versions: [DocumentRecord]) {
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
        return (documents, versions)
    }

    /// Applies one changed `Document` record: a move, a download, or a placeholder.
    ///
    /// Every write checks the disk: a file that changed since the last sync, or one this device never
    /// synced, is never replaced (the change waits, and that file uploads first); a place another kind of
    /// entry holds is settled by ``placeBlocked(_:row:because:retrying:into:)``.
    func apply(_ record: DocumentRecord, retrying: Bool = false, into report: inout DocumentsSyncReport) async throws {
        let row = try state.document(named: record.recordName)
        if let row, row.holds(record) { return }
        if let row, row.downloaded {
            guard let entry = tree.entry(row.path), row.matches(entry) else {
                tokenHeld = true  // changed here since the scan: the next sync uploads it (a conflict), then applies this
                return
            }
        }
        if try holder(of: record.path, other: record.recordName) != nil {
            throw DocumentsError(.badRecord, "another document holds this path", path: record.path)
        }
        do {
            if let row, row.downloaded, row.record.contentHash == record.contentHash {
                try move(row, to: record, into: &report)
            } else if try await adoptIdenticalFile(for: record) {
                return
            } else if row?.downloaded == true || configuration.downloadsEagerly {
                let bytes = try await install(record, replacing: row, progress: nil)
                report.bytesDownloaded += bytes.bytes
                report.chunksDownloaded += bytes.chunks
                if let row, row.downloaded, !DocumentPath.sameSpelling(row.path, record.path) {
                    announce(.renamed(from: row.path, to: record.path), into: &report)
                }
                announce(.downloaded(path: record.path, bytes: bytes.bytes), into: &report)
            } else {
                try state.save(LocalDocument(record: record, downloaded: false, inode: nil, mtimeNs: nil))
                announce(.placeholder(path: record.path, size: record.size), into: &report)
            }
        } catch let error as DocumentsError where error.code == .pathBlocked || error.code == .occupied {
            try await placeBlocked(record, row: row, because: error, retrying: retrying, into: &report)
        }
    }

    /// A remote move (no byte changed): the file is renamed, never over a file this device has not synced.
    private func move(_ row: LocalDocument, to record: DocumentRecord, into report: inout DocumentsSyncReport) throws {
        var moved = row
        if !DocumentPath.sameSpelling(row.path, record.path) {
            try coordinator.write(row.path, record.path) { try tree.move(row.path, to: record.path) }
            removeEmptyFolders(above: row.path)
            announce(.renamed(from: row.path, to: record.path), into: &report)
        }
        let entry = tree.entry(record.path)
        moved.record = record
        moved.inode = entry?.inode
        moved.mtimeNs = entry?.mtimeNs
        try state.save(moved)
    }

    /// A document deleted on the server. A file changed here since the last sync stays (and uploads as a
    /// new document); a pending one (this device's bytes, not confirmed) is not touched at all.
    private func applyDeletion(of recordName: String, into report: inout DocumentsSyncReport) throws {
        if let version = try state.versions().first(where: { $0.record.recordName == recordName }) {
            try state.removeVersion(named: recordName)
            VersionCopies.remove(recordName, in: versionsFolder)
            if try state.versions().contains(where: { $0.record.document == version.record.document }) == false {
                announce(.resolved(path: version.record.path), into: &report)
            }
            return
        }
        guard let row = try state.document(named: recordName), !row.isPending else { return }
        var kept = false
        if row.downloaded {
            let removed = coordinator.write(row.path) { tree.removeFile(row.path) { row.matches($0) } }
            kept = !removed && tree.entry(row.path) != nil
            removeEmptyFolders(above: row.path)
        }
        try state.removeDocument(named: recordName)
        try removeVersions(of: recordName)
        announce(kept ? .kept(path: row.path) : .deletedLocally(path: row.path), into: &report)
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
            guard let row, let previous else {
                try tree.install(temporary, at: target, replacing: .nothing)  // a file not synced here is never replaced
                return true
            }
            guard let entry = tree.entry(previous), row.matches(entry) else { return false }
            if DocumentPath.sameSpelling(previous, target) {
                try tree.install(temporary, at: target, replacing: .file(entry))
            } else {
                try tree.install(temporary, at: target, replacing: .nothing)
                tree.removeFile(previous) { $0.sameFile(as: entry) }
            }
            return true
        }
        guard replaced else {
            tokenHeld = true
            return (0, 0)
        }
        if let previous, !DocumentPath.sameSpelling(previous, target) { removeEmptyFolders(above: previous) }
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
            if let row, row.holds(record) || (row.downloaded && row.record.contentHash == record.contentHash) { continue }
            guard row?.downloaded == true || configuration.downloadsEagerly, !record.chunkHashes.isEmpty else { continue }
            if row?.downloaded != true, tree.entry(record.path) != nil { continue }  // a file here already: adopted, or it waits
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
    ///   folder or a symbolic link is in the document's way here, ``DocumentsError/Code/occupied`` when a file
    ///   not synced is at its path, ``DocumentsError/Code/invalidPath`` or
    ///   ``DocumentsError/Code/badRecord`` for an unsafe record; `StratusError` from the server.
    public func download(_ path: String, progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws {
        try requireWritable("download")
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
