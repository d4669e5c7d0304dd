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
    /// current and this device's content becomes a conflict version. A server that no longer has the
    /// zone, or some of its documents (wiped, or new at this address), gets this device's documents again.
    ///
    /// ```swift
    /// let report = try await documents.sync()
    /// for activity in report.activities { print(activity) }
    /// ```
    ///
    /// - Returns: What moved.
    /// - Throws: ``DocumentsError`` or `StratusError` when a request or a download failed; what was
    ///   applied stays applied, and the next sync picks up the rest (the change token only moves
    ///   forward when every change was applied). ``DocumentsError/Code/readOnly`` for a read-only container.
    @discardableResult
    public func sync() async throws -> DocumentsSyncReport {
        try requireWritable("sync")
        return try await serialized { try await self.performSync() }
    }

    func performSync() async throws -> DocumentsSyncReport {
        var report = DocumentsSyncReport()
        do {
            try await syncPasses(into: &report)
        } catch let error as StratusError where error.code == .zoneNotFound {
            // The server has no documents zone although this device made it: a wiped or new server.
            try forgetServerState(into: &report)
            try await syncPasses(into: &report)
        }
        return report
    }

    /// Uploads and fetches; once more when a pass found documents the server no longer has.
    private func syncPasses(into report: inout DocumentsSyncReport) async throws {
        try await ensureZone()
        if try state.meta("token") == nil, try state.documents().isEmpty {
            // A folder never synced here (or whose state was deleted): see what the server has first, so
            // files already here with the same bytes are recognised instead of uploaded as twins.
            try await fetchChanges(into: &report)
        }
        needsAnotherPass = false
        for pass in 0..<2 {
            var failure: (any Error)?
            do {
                try await uploadLocalChanges(into: &report)
            } catch let error as StratusError where error.code == .zoneNotFound {
                throw error
            } catch {
                failure = error
            }
            try await uploadPendingVersions(into: &report)
            try await fetchChanges(into: &report)
            if let failure { throw failure }
            guard needsAnotherPass, pass == 0 else { return }
            needsAnotherPass = false
        }
    }

    func ensureZone() async throws {
        guard try state.meta("zone") == nil else { return }
        _ = try await database.save(RecordZone(zoneName: DocumentRecord.zoneName))
        try state.setMeta("zone", "1")
    }

    private func uploadLocalChanges(into report: inout DocumentsSyncReport) async throws {
        let hints = moveHints
        moveHints = [:]
        let tree = self.tree
        var listing = try await Self.offload { try DiskScanner.scan(tree.root) }
        for path in listing.skipped { configuration.logger.info("not syncing '\(path)': not a valid document path") }
        try settleLocalSpellings(in: &listing, into: &report)
        let (changes, unreadable) = try await detectChanges(in: listing, hints: hints)
        for (path, reason) in listing.unreadable + unreadable {
            announce(.skipped(path: DocumentPath.printable(path), reason: reason), into: &report)
        }
        var planned: [Plan] = []
        var pending: [Plan] = []
        var deletions: [LocalDocument] = []
        for change in changes {
            switch change {
            case .touched(var row, let entry):
                row.inode = entry.inode
                row.mtimeNs = entry.mtimeNs
                try state.save(row)
            case .deleted(let row):
                deletions.append(row)
            case .created(let entry, let digest):
                planned.append(try planCreation(change, entry: entry, digest: digest))
            case .modified(let row, let entry, let digest):
                let plan = Plan(change: change, entry: entry, base: row.record, digest: digest)
                if row.isPending { pending.append(plan) } else { planned.append(plan) }
            case .renamed(let row, let entry, let digest):
                let plan = Plan(change: change, entry: entry, base: row.record, digest: digest)
                if row.isPending { pending.append(plan) } else { planned.append(plan) }
            }
        }
        planned += try await reconcilePending(pending, into: &report)
        let firstError = try await upload(planned, into: &report)
        try await delete(deletions, into: &report)
        if let firstError { throw firstError }
    }

    /// Lists what changed, hashing on a dispatch thread (not on Swift's cooperative pool).
    ///
    /// Rows inside a folder that cannot be read are left out, so their documents are not taken for
    /// deleted; a file that cannot be read (or changes while it is read) is neither new nor changed this time.
    private func detectChanges(
        in listing: DiskScanner.Listing, hints: [String: String]
    ) async throws
        -> (changes: [LocalChangeDetector.Change], unreadable: [(path: String, reason: String)])
    {
        let blocked = listing.unreadable.map(\.path)
        // A row an earlier release synced under a name the validator now refuses is left alone (the scan skips its file too).
        let known = try state.documents().filter { row in
            (try? DocumentPath.validate(row.path)) != nil && !blocked.contains { row.path.hasPrefix($0 + "/") }
        }
        let chunkSize = configuration.chunkSize
        let tree = self.tree
        let coordinator = self.coordinator
        let logger = configuration.logger
        return try await Self.offload {
            var unreadable: [(path: String, reason: String)] = []
            let changes = try LocalChangeDetector.changes(disk: listing.entries, known: known, moves: hints) { entry in
                do {
                    return try coordinator.read(entry.path) {
                        try ChunkedFile.digest(of: try tree.openForReading(entry.path), name: entry.path, chunkSize: chunkSize)
                    }
                } catch let error as DocumentsError where error.code == .contentMismatch || error.code == .notFound {
                    logger.info("'\(entry.path)' is skipped this time: \(error.message)")  // being written, or gone
                } catch {
                    unreadable.append((entry.path, "cannot read it (\(DiskScanner.reason(of: error)))"))
                }
                return nil
            }
            return (changes, unreadable)
        }
    }

    /// Runs blocking file work on a global dispatch queue and awaits its result.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Two files here whose names are one name under NFC (`café` composed and decomposed, distinct on
    /// Linux): one keeps the name, the others move to `name (device).ext` — a collision like any other.
    private func settleLocalSpellings(in listing: inout DiskScanner.Listing, into report: inout DocumentsSyncReport) throws {
        let groups = Dictionary(grouping: listing.entries.indices, by: { DocumentPath.key(listing.entries[$0].path) })
        for indices in groups.values where indices.count > 1 {
            let keeper = try indices.first { index in
                try state.document(atPath: listing.entries[index].path).map { DocumentPath.sameSpelling($0.path, listing.entries[index].path) }
                    ?? false
            }
            for index in indices where index != (keeper ?? indices[0]) {
                let path = listing.entries[index].path
                let target = try freePath(near: path, device: configuration.deviceName)
                do {
                    try coordinator.write(path, target) { try tree.move(path, to: target) }
                } catch {
                    configuration.logger.warning("cannot move '\(path)' aside from another spelling of its name: \(error)")
                    continue
                }
                announce(.renamed(from: path, to: target), into: &report)
                if let moved = tree.entry(target) { listing.entries[index] = moved }
            }
        }
    }

    // MARK: Uploading

    /// A new file's plan; its record name is saved (a pending row) before anything is sent, so an upload
    /// interrupted after the server committed is retried under the same name instead of making a twin.
    func planCreation(_ change: LocalChangeDetector.Change, entry: DiskEntry, digest: FileDigest) throws -> Plan {
        let document = DocumentRecord(
            recordName: UUID().uuidString, path: entry.path, size: entry.size, contentHash: digest.contentHash,
            modified: Date(timeIntervalSince1970: Double(entry.mtimeNs) / 1e9), device: configuration.deviceName,
            chunkSize: configuration.chunkSize, chunkHashes: digest.chunkHashes)
        try state.save(LocalDocument(record: document, downloaded: true, inode: entry.inode, mtimeNs: entry.mtimeNs))
        return Plan(change: change, entry: entry, base: document, digest: digest)
    }

    /// What the record says after the plan: the base with the new path and, with a digest, the new content.
    func describe(_ plan: Plan) -> DocumentRecord {
        var document = plan.base
        document.path = plan.entry.path
        guard let digest = plan.digest else { return document }
        document.size = plan.entry.size
        document.contentHash = digest.contentHash
        document.chunkHashes = digest.chunkHashes
        document.chunkSize = configuration.chunkSize
        document.modified = Date(timeIntervalSince1970: Double(plan.entry.mtimeNs) / 1e9)
        document.device = configuration.deviceName
        return document
    }

    /// Sends plans in bounded batches (at most 200 records and about 64 MB of copied-out chunks at once);
    /// returns the first failure that is not a conflict (conflicts are settled here).
    func upload(_ plans: [Plan], into report: inout DocumentsSyncReport) async throws -> (any Error)? {
        var batch: [Upload] = []
        var firstError: (any Error)?
        defer { Self.removeTemporaryFiles(of: batch) }
        for plan in plans {
            guard let upload = try prepare(plan) else { continue }
            batch.append(upload)
            if batch.count >= Database.maximumOperationsPerRequest || batch.reduce(0, { $0 + $1.bytes }) >= Self.batchBytes {
                let failed = try await save(batch, into: &report)
                firstError = firstError ?? failed
                Self.removeTemporaryFiles(of: batch)
                batch = []
            }
        }
        let failed = try await save(batch, into: &report)
        return firstError ?? failed
    }

    /// How many bytes of new chunks one upload batch copies out at most (one chunk more may push it over).
    private static let batchBytes: Int64 = 64 << 20

    static func removeTemporaryFiles(of uploads: [Upload]) {
        ChunkSnapshots.remove(uploads.flatMap(\.temporaryFiles))
    }

    /// The record to save for a plan; `nil` when the file changed since the scan (the next sync sends it).
    private func prepare(_ plan: Plan) throws -> Upload? {
        let document = describe(plan)
        let confirmed = plan.base.changeTag != nil
        var record =
            confirmed
            ? try plan.base.baseRecord() : StratusClient.Record(recordType: DocumentRecord.documentType, recordID: document.recordID)
        if plan.digest == nil, confirmed {
            document.writePath(into: &record)
            return Upload(plan: plan, record: record, document: document, temporaryFiles: [], bytes: 0, chunks: 0)
        }
        guard let chunks = try chunks.assets(for: document, at: plan.entry.path, heldBy: plan.base) else { return nil }
        document.write(into: &record, chunks: chunks.assets)
        return Upload(
            plan: plan, record: record, document: document, temporaryFiles: chunks.temporary, bytes: chunks.bytes,
            chunks: chunks.temporary.count)
    }

    /// Saves one batch; returns the first failure that is not a conflict (conflicts are handled here).
    ///
    /// - Throws: `StratusError` ``StratusError/Code/zoneNotFound`` when the server has no documents zone.
    private func save(_ uploads: [Upload], into report: inout DocumentsSyncReport) async throws -> (any Error)? {
        guard !uploads.isEmpty else { return nil }
        var firstError: (any Error)?
        let results = try await Self.saveConcurrently(uploads.map(\.record), in: database, lanes: configuration.concurrentTransfers)
        for upload in uploads {
            switch results[upload.record.recordID] {
            case .success(let savedRecord)?:
                try recordSaved(upload, record: savedRecord, into: &report)
            case .failure(let error)? where error.code == .serverRecordChanged:
                guard let server = error.serverRecord else { throw error }
                try await conflicted(upload.plan, serverRecord: server, into: &report)
            case .failure(let error)? where error.code == .unknownItem && upload.plan.base.changeTag != nil:
                try recordLost(upload)
            case .failure(let error)? where error.code == .zoneNotFound:
                throw error
            case .failure(let error)?:
                configuration.logger.warning("cannot upload '\(upload.plan.entry.path)': \(error)")
                firstError = firstError ?? error
            case nil:
                firstError = firstError ?? DocumentsError(.badRecord, "the server did not answer for '\(upload.plan.entry.path)'")
            }
        }
        return firstError
    }

    /// Saves records in `lanes` concurrent `modifyRecords` calls (the SDK sends one asset at a time per call).
    private static func saveConcurrently(
        _ records: [StratusClient.Record], in database: Database, lanes: Int
    ) async throws
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

    private func recordSaved(_ upload: Upload, record: StratusClient.Record, into report: inout DocumentsSyncReport) throws {
        var document = upload.document
        document.changeTag = record.recordChangeTag
        if let stored = try? decoded(record) { document.chunks = stored.chunks }
        let entry = upload.plan.entry
        try state.save(LocalDocument(record: document, downloaded: true, inode: entry.inode, mtimeNs: entry.mtimeNs))
        report.bytesUploaded += upload.bytes
        report.chunksUploaded += upload.chunks
        if case .renamed(let row, _, let digest) = upload.plan.change, !DocumentPath.sameSpelling(row.path, entry.path) {
            announce(.renamed(from: row.path, to: entry.path), into: &report)
            if digest != nil { announce(.uploaded(path: entry.path, bytes: upload.bytes), into: &report) }
        } else {
            announce(.uploaded(path: entry.path, bytes: upload.bytes), into: &report)
        }
    }

    /// An update whose record the server no longer has (deleted elsewhere while this device changed it,
    /// or lost by the server): the edit wins — the row becomes pending and is created again, under the
    /// same name, in the next pass of this sync.
    private func recordLost(_ upload: Upload) throws {
        var document = upload.document
        document.changeTag = nil
        document.chunks = []
        let entry = upload.plan.entry
        try state.save(LocalDocument(record: document, downloaded: true, inode: entry.inode, mtimeNs: entry.mtimeNs))
        needsAnotherPass = true
    }
}
