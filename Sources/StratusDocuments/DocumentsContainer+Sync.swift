import Dispatch
import Foundation
import StratusClient
import StratusCrypto
import StratusLogging
import StratusWire

extension DocumentsContainer {
    /// Uploads local changes, then applies the server's: one full sync.
    ///
    /// Creations, edits (only changed chunks are sent; nothing when the content hash is unchanged),
    /// renames and moves, and deletions go up; then `changes/zone` of the reserved zone comes down
    /// (only documents whose content hash changed are downloaded, reusing unchanged chunks of the
    /// local file). A save against a stale change tag is a conflict: the server's version stays
    /// current and this device's content becomes a conflict version.
    ///
    /// ```swift
    /// let report = try await documents.sync()
    /// for activity in report.activities { print(activity) }
    /// ```
    ///
    /// - Returns: What moved.
    /// - Throws: ``DocumentsError`` or `StratusError` when a request or a download failed; what was
    ///   applied stays applied, and the next sync picks up the rest (the change token only moves
    ///   forward when every change was applied).
    @discardableResult
    public func sync() async throws -> DocumentsSyncReport {
        try await serialized { try await self.performSync() }
    }

    func performSync() async throws -> DocumentsSyncReport {
        var report = DocumentsSyncReport()
        try await ensureZone()
        var failure: (any Error)?
        do {
            try await uploadLocalChanges(into: &report)
        } catch {
            failure = error
        }
        try await uploadPendingVersions(into: &report)
        try await fetchChanges(into: &report)
        if let failure { throw failure }
        return report
    }

    func ensureZone() async throws {
        guard try state.meta("zone") == nil else { return }
        _ = try await database.save(RecordZone(zoneName: DocumentRecord.zoneName))
        try state.setMeta("zone", "1")
    }

    /// One local change turned into a record to save.
    private struct Upload {
        var record: StratusClient.Record
        var document: DocumentRecord
        var entry: DiskEntry
        var change: LocalChangeDetector.Change
        var temporaryFiles: [URL]
        var bytes: Int64
        var chunks: Int
    }

    private func uploadLocalChanges(into report: inout DocumentsSyncReport) async throws {
        let hints = moveHints
        moveHints = [:]
        // A row an earlier release synced under a name the validator now refuses is left alone (the scan skips its file too).
        let known = try state.documents().filter { (try? DocumentPath.validate($0.path)) != nil }
        let chunkSize = configuration.chunkSize
        let tree = self.tree
        let coordinator = self.coordinator
        // Listing and hashing block on the disk: on a dispatch thread, not on the cooperative pool.
        let (changes, skipped) = try await Self.offload {
            let listing = try DiskScanner.scan(tree.root)
            let changes = try LocalChangeDetector.changes(disk: listing.entries, known: known, moves: hints) { entry in
                try coordinator.read(entry.path) {
                    try ChunkedFile.digest(of: try tree.openForReading(entry.path), name: entry.path, chunkSize: chunkSize)
                }
            }
            return (changes, listing.skipped)
        }
        for path in skipped { configuration.logger.info("not syncing '\(path)': not a valid document path") }
        var batch: [Upload] = []
        var deletions: [LocalDocument] = []
        var firstError: (any Error)?
        defer { Self.removeTemporaryFiles(of: batch) }
        for change in changes {
            var upload: Upload?
            switch change {
            case .touched(var row, let entry):
                row.inode = entry.inode
                row.mtimeNs = entry.mtimeNs
                try state.save(row)
            case .deleted(let row):
                deletions.append(row)
            case .created(let entry, let digest):
                upload = try makeUpload(change, entry: entry, base: nil, digest: digest)
            case .modified(let row, let entry, let digest):
                upload = try makeUpload(change, entry: entry, base: row.record, digest: digest)
            case .renamed(let row, let entry, let digest):
                upload = try makeUpload(change, entry: entry, base: row.record, digest: digest)
            }
            guard let upload else { continue }
            batch.append(upload)
            // Bounded batches: at most 200 records and about 64 MB of snapshotted chunks wait in `.stratus/tmp`.
            if batch.count >= Database.maximumOperationsPerRequest || batch.reduce(0, { $0 + $1.bytes }) >= Self.batchBytes {
                let failed = try await save(batch, into: &report)
                firstError = firstError ?? failed
                Self.removeTemporaryFiles(of: batch)
                batch = []
            }
        }
        let failed = try await save(batch, into: &report)
        firstError = firstError ?? failed
        try await delete(deletions, into: &report)
        if let firstError { throw firstError }
    }

    /// Saves records in `lanes` concurrent `modifyRecords` calls (the SDK sends one asset at a time per call).
    private static func saveConcurrently(_ records: [StratusClient.Record], in database: Database, lanes: Int) async throws
        -> [RecordID: Result<StratusClient.Record, StratusError>]
    {
        let size = max(1, (records.count + max(1, lanes) - 1) / max(1, lanes))
        let groups = stride(from: 0, to: records.count, by: size).map { Array(records[$0..<min($0 + size, records.count)]) }
        return try await withThrowingTaskGroup(of: Database.ModifyResults.self) { group in
            for records in groups {
                group.addTask {
                    try await database.modifyRecords(saving: records, deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: false)
                }
            }
            var merged: [RecordID: Result<StratusClient.Record, StratusError>] = [:]
            for try await results in group { merged.merge(results.saveResults) { first, _ in first } }
            return merged
        }
    }

    /// Runs blocking file work on a global dispatch queue and awaits its result.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// How many bytes of new chunks one upload batch snapshots at most (one chunk more may push it over).
    private static let batchBytes: Int64 = 64 << 20

    private static func removeTemporaryFiles(of uploads: [Upload]) {
        for upload in uploads { for file in upload.temporaryFiles { try? FileManager.default.removeItem(at: file) } }
    }

    /// Saves one batch; returns the first failure that is not a conflict (conflicts are handled here).
    private func save(_ uploads: [Upload], into report: inout DocumentsSyncReport) async throws -> (any Error)? {
        guard !uploads.isEmpty else { return nil }
        var firstError: (any Error)?
        let results = try await Self.saveConcurrently(uploads.map(\.record), in: database, lanes: configuration.concurrentTransfers)
        for upload in uploads {
            switch results[upload.record.recordID] {
            case .success(let savedRecord)?:
                try recordSaved(upload, record: savedRecord, into: &report)
            case .failure(let error)? where error.code == .serverRecordChanged:
                try await conflicted(upload, error: error, into: &report)
            case .failure(let error)?:
                configuration.logger.warning("cannot upload '\(upload.entry.path)': \(error)")
                firstError = firstError ?? error
            case nil:
                firstError = firstError ?? DocumentsError(.badRecord, "the server did not answer for '\(upload.entry.path)'")
            }
        }
        return firstError
    }

    /// The record to save for a creation, edit or rename; unchanged chunks are echoed, new ones uploaded from files.
    private func makeUpload(_ change: LocalChangeDetector.Change, entry: DiskEntry, base: DocumentRecord?, digest: FileDigest?) throws
        -> Upload?
    {
        let name = base?.recordName ?? UUID().uuidString
        var document =
            base
            ?? DocumentRecord(
                recordName: name, path: entry.path, size: 0, contentHash: "", modified: Date(), device: "", chunkSize: configuration.chunkSize,
                chunkHashes: [])
        document.path = entry.path
        var record: StratusClient.Record
        if let base, base.changeTag != nil {
            record = try base.baseRecord()
        } else {
            record = StratusClient.Record(recordType: DocumentRecord.documentType, recordID: document.recordID)
        }
        guard let digest else {
            document.writePath(into: &record)
            return Upload(record: record, document: document, entry: entry, change: change, temporaryFiles: [], bytes: 0, chunks: 0)
        }
        document.size = entry.size
        document.contentHash = digest.contentHash
        document.chunkHashes = digest.chunkHashes
        document.chunkSize = configuration.chunkSize
        document.modified = Date(timeIntervalSince1970: Double(entry.mtimeNs) / 1e9)
        document.device = configuration.deviceName
        var assets: [Asset] = []
        var temporary: [URL] = []
        var bytes: Int64 = 0
        for (index, hash) in digest.chunkHashes.enumerated() {
            if let base, base.chunkSize == document.chunkSize, let old = base.chunkHashes.firstIndex(of: hash), old < base.chunks.count,
                let checksum = base.chunks[old].fileChecksum
            {
                assets.append(Asset(fileChecksum: checksum, size: base.chunks[old].size))
                continue
            }
            let length = min(document.chunkSize, entry.size - Int64(index) * document.chunkSize)
            bytes += length
            let path = entry.path
            let chunkFile = try snapshotChunk(index, of: path, chunkSize: document.chunkSize, expecting: hash) {
                try self.tree.openForReading(path)
            }
            guard let chunkFile else {
                for file in temporary { try? FileManager.default.removeItem(at: file) }
                return nil  // written again since the scan: the next sync uploads the new content
            }
            temporary.append(chunkFile)
            assets.append(Asset(fileURL: chunkFile))
        }
        document.write(into: &record, chunks: assets)
        return Upload(
            record: record, document: document, entry: entry, change: change, temporaryFiles: temporary, bytes: bytes,
            chunks: assets.filter { $0.localFileURL != nil }.count)
    }

    /// Copies chunk `index` of a file (`open` opens it) to `.stratus/tmp` (under the path's read lock) for the
    /// SDK to upload; `nil` when its bytes no longer have the hash the scan saw (the file was written meanwhile).
    func snapshotChunk(
        _ index: Int, of path: String, chunkSize: Int64, expecting hash: String, open: () throws -> FileHandle
    ) throws -> URL? {
        let data = try coordinator.read(path) { try ChunkedFile.chunk(index, of: try open(), name: path, chunkSize: chunkSize) }
        guard SHA256.hash(data).hexString == hash else { return nil }
        let chunkFile = temporaryFolder.appendingPathComponent("up-" + UUID().uuidString)
        try ChunkedFile.write(data, to: chunkFile)
        return chunkFile
    }

    private func recordSaved(_ upload: Upload, record: StratusClient.Record, into report: inout DocumentsSyncReport) throws {
        var document = upload.document
        document.changeTag = record.recordChangeTag
        if let stored = try? decoded(record) { document.chunks = stored.chunks }
        try state.save(LocalDocument(record: document, downloaded: true, inode: upload.entry.inode, mtimeNs: upload.entry.mtimeNs))
        report.bytesUploaded += upload.bytes
        report.chunksUploaded += upload.chunks
        switch upload.change {
        case .renamed(let row, _, let digest):
            self.announce(.renamed(from: row.path, to: upload.entry.path), into: &report)
            if digest != nil { self.announce(.uploaded(path: upload.entry.path, bytes: upload.bytes), into: &report) }
        default:
            self.announce(.uploaded(path: upload.entry.path, bytes: upload.bytes), into: &report)
        }
    }

    /// A save against a stale change tag: keep the server's version current; this device's content becomes a conflict version.
    ///
    /// The row keeps the old change tag but describes the file as it is now; then the server's current
    /// record is looked up and applied, which brings its content (and path) over the file.
    private func conflicted(_ upload: Upload, error: StratusError, into report: inout DocumentsSyncReport) async throws {
        guard let serverRecord = error.serverRecord else { throw error }
        let server: DocumentRecord
        do {
            server = try decoded(serverRecord)
        } catch {
            // The server's version is unsafe (a path with '..'…): this file is no longer that document; it uploads as a new one.
            configuration.logger.warning("'\(upload.entry.path)' leaves its document, whose server version is not valid: \(error)")
            try state.removeDocument(named: upload.document.recordName)
            return
        }
        let previous = try state.document(named: upload.document.recordName)
        var row = LocalDocument(
            record: previous?.record ?? upload.document, downloaded: true, inode: upload.entry.inode, mtimeNs: upload.entry.mtimeNs)
        row.record.path = upload.entry.path
        row.record.contentHash = upload.document.contentHash
        row.record.size = upload.document.size
        let contentChanged = upload.document.contentHash != previous?.record.contentHash
        if case .renamed(_, _, nil) = upload.change, server.path != upload.entry.path {
            // A rename only: apply it over the server's version (its content comes down with the fetch).
            var retry = serverRecord
            retry["path"] = upload.entry.path
            if (try? await database.save(retry)) != nil {
                announce(.renamed(from: server.path, to: upload.entry.path), into: &report)
            }
        } else if contentChanged, server.contentHash != upload.document.contentHash {
            if let previous, server.contentHash == previous.record.contentHash,
                try await rebase(upload, onto: serverRecord, path: server.path, into: &report)
            {
                return
            }
            try keepConflictVersion(of: upload, documentID: server.recordName)
            announce(.conflict(path: upload.entry.path, device: configuration.deviceName), into: &report)
        }
        try state.save(row)
        // Bring the server's version over the file now, whether or not the change feed still holds it.
        let current = try decoded(try await database.record(for: server.recordID))
        try await apply(current, into: &report)
    }

    /// The server's version only moved the document: save this device's content on top of it and follow its path.
    ///
    /// - Returns: Whether the rebased save succeeded (else the caller keeps a conflict version).
    private func rebase(_ upload: Upload, onto serverRecord: StratusClient.Record, path: String, into report: inout DocumentsSyncReport)
        async throws -> Bool
    {
        var retry = serverRecord
        for key in upload.record.changedKeys() where key != "path" {
            retry[key] = upload.record.fields[key]
        }
        guard let saved = try? await database.save(retry) else { return false }
        if path != upload.entry.path {
            try coordinator.write(upload.entry.path, path) { try tree.move(upload.entry.path, to: path) }
            removeEmptyFolders(above: upload.entry.path)
            announce(.renamed(from: upload.entry.path, to: path), into: &report)
        }
        var document = upload.document
        document.path = path
        document.changeTag = saved.recordChangeTag
        if let stored = try? decoded(saved) { document.chunks = stored.chunks }
        try state.save(LocalDocument(record: document, downloaded: true, inode: upload.entry.inode, mtimeNs: upload.entry.mtimeNs))
        report.bytesUploaded += upload.bytes
        report.chunksUploaded += upload.chunks
        announce(.uploaded(path: path, bytes: upload.bytes), into: &report)
        return true
    }

    /// Copies this device's content to the versions folder and queues its `DocumentVersion` record.
    private func keepConflictVersion(of upload: Upload, documentID: String) throws {
        let name = UUID().uuidString
        let copy = VersionCopies.file(name, in: versionsFolder)
        try coordinator.read(upload.entry.path) {
            do {
                try ChunkedFile.copy(try tree.openForReading(upload.entry.path), to: copy)
            } catch {
                throw DocumentsError(.fileSystem, "cannot keep a conflict copy: \(error)", path: upload.entry.path, underlying: error)
            }
        }
        var version = upload.document
        version.recordName = name
        version.document = documentID
        version.changeTag = nil
        version.chunks = []
        try state.save(LocalVersion(record: version, uploaded: false, downloaded: true))
    }

    /// Deletes the records of files deleted here (and their conflict versions), unless another device changed
    /// them since (then the fetch brings them back).
    private func delete(_ rows: [LocalDocument], into report: inout DocumentsSyncReport) async throws {
        guard !rows.isEmpty else { return }
        let current = try await database.records(for: rows.map(\.record.recordID), desiredKeys: ["path"])
        var doomed: [LocalDocument] = []
        for var row in rows {
            switch current[row.record.recordID] {
            case .success(let record)? where record.recordChangeTag != row.record.changeTag:
                row.downloaded = false  // edited elsewhere: the edit wins, the fetch downloads it again
                row.record.contentHash = ""
                try state.save(row)
            case .failure(let error)? where error.code == .unknownItem:
                try state.removeDocument(named: row.record.recordName)
            default:
                doomed.append(row)
            }
        }
        let names = Set(doomed.map(\.record.recordName))
        let versions = try state.versions().filter { $0.uploaded && names.contains($0.record.document ?? "") }.map(\.record.recordID)
        let results = try await database.modifyRecords(saving: [], deleting: doomed.map(\.record.recordID) + versions, atomically: false)
        for row in doomed {
            guard case .success? = results.deleteResults[row.record.recordID] else { continue }
            try state.removeDocument(named: row.record.recordName)
            try removeVersions(of: row.record.recordName)
            announce(.deletedRemotely(path: row.path), into: &report)
        }
    }
}
