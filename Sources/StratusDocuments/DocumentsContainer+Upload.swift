import Foundation
import StratusClient
import StratusCrypto
import StratusLogging
import StratusWire

/// A local change to send: the change, the file as hashed, the record it updates and the new digest.
struct Plan {
    var change: LocalChangeDetector.Change
    var entry: DiskEntry
    /// The record as this device last saw it on the server (its tag and chunks), or a pending record.
    var base: DocumentRecord
    /// The new content's digest; `nil` for a rename that changed no byte.
    var digest: FileDigest?
}

/// A plan made ready to save: the record and the chunk files copied out for it.
struct Upload {
    var plan: Plan
    var record: StratusClient.Record
    var document: DocumentRecord
    var temporaryFiles: [URL]
    var bytes: Int64
    var chunks: Int
}

extension DocumentsContainer {
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
        for upload in uploads { for file in upload.temporaryFiles { try? FileManager.default.removeItem(at: file) } }
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
        guard let chunks = try chunkAssets(for: document, at: plan.entry.path, heldBy: plan.base) else { return nil }
        document.write(into: &record, chunks: chunks.assets)
        return Upload(
            plan: plan, record: record, document: document, temporaryFiles: chunks.temporary, bytes: chunks.bytes,
            chunks: chunks.temporary.count)
    }

    /// The chunk assets of `document` (whose file is at `path`): a chunk the server's record `held` holds
    /// (same hash and chunk size) is echoed, every other one is copied out to upload.
    ///
    /// Only a record the server confirmed (with a change tag) holds chunks: a pending record's chunks,
    /// or those of a version this device last saw, are not echoed to a record that does not have them.
    /// - Returns: `nil` when the file no longer has the hashes the scan saw.
    func chunkAssets(
        for document: DocumentRecord, at path: String, heldBy held: DocumentRecord?
    ) throws
        -> (assets: [Asset], temporary: [URL], bytes: Int64)?
    {
        var assets: [Asset] = []
        var temporary: [URL] = []
        var bytes: Int64 = 0
        for (index, hash) in document.chunkHashes.enumerated() {
            if let held, held.changeTag != nil, held.chunkSize == document.chunkSize, let old = held.chunkHashes.firstIndex(of: hash),
                old < held.chunks.count, let checksum = held.chunks[old].fileChecksum
            {
                assets.append(Asset(fileChecksum: checksum, size: held.chunks[old].size))
                continue
            }
            let length = DocumentRecord.chunkLength(index, size: document.size, chunkSize: document.chunkSize)
            let file = try snapshotChunk(index, of: path, chunkSize: document.chunkSize, length: length, expecting: hash) {
                try self.tree.openForReading(path)
            }
            guard let file else {
                for file in temporary { try? FileManager.default.removeItem(at: file) }
                return nil  // written again since the scan: the next sync uploads the new content
            }
            bytes += length
            temporary.append(file)
            assets.append(Asset(fileURL: file))
        }
        return (assets, temporary, bytes)
    }

    /// Copies chunk `index` of a file (`open` opens it) to `.stratus/tmp` (under the path's read lock) for the
    /// SDK to upload; `nil` when its bytes no longer have the hash the scan saw (the file was written meanwhile).
    func snapshotChunk(
        _ index: Int, of path: String, chunkSize: Int64, length: Int64, expecting hash: String, open: () throws -> FileHandle
    ) throws -> URL? {
        let data = try coordinator.read(path) {
            try ChunkedFile.chunk(index, of: try open(), name: path, chunkSize: chunkSize, length: length)
        }
        guard Int64(data.count) == length, SHA256.hash(data).hexString == hash else { return nil }
        let chunkFile = temporaryFolder.appendingPathComponent("up-" + UUID().uuidString)
        try ChunkedFile.write(data, to: chunkFile)
        return chunkFile
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
