public import Foundation
import StratusClient
import StratusWire

extension DocumentsContainer {
    /// The current version of a document (the conflict winner).
    ///
    /// - Parameter path: The document path.
    /// - Returns: The version whose content is at `path`.
    /// - Throws: ``DocumentsError/Code/notFound`` for an unknown path.
    public func currentVersion(of path: String) throws -> DocumentVersion {
        let path = try DocumentPath.validate(path)
        guard let row = try state.document(atPath: path) else { throw DocumentsError(.notFound, "no document at this path", path: path) }
        return Self.version(row.record, current: true, documentID: row.record.recordName)
    }

    /// The versions of a document that lost a conflict and are not resolved yet, oldest first.
    ///
    /// ```swift
    /// for version in try await documents.unresolvedConflictVersions(of: "notes.txt") {
    ///     print(version.device, version.modificationDate, version.size)
    /// }
    /// ```
    ///
    /// - Parameter path: The document path.
    /// - Returns: The conflict versions (empty when there is no conflict).
    /// - Throws: ``DocumentsError/Code/notFound`` for an unknown path.
    public func unresolvedConflictVersions(of path: String) throws -> [DocumentVersion] {
        let current = try currentVersion(of: path)
        return try state.versions().filter { $0.record.document == current.documentID }
            .map { Self.version($0.record, current: false, documentID: current.documentID) }
            .sorted { ($0.modificationDate, $0.id) < ($1.modificationDate, $1.id) }
    }

    /// Every document with unresolved conflict versions, by path.
    ///
    /// - Returns: The conflict versions of each document that has some.
    /// - Throws: ``DocumentsError`` when the state database fails.
    public func allUnresolvedConflicts() throws -> [String: [DocumentVersion]] {
        var conflicts: [String: [DocumentVersion]] = [:]
        for row in try state.documents() {
            let versions = try unresolvedConflictVersions(of: row.path)
            if !versions.isEmpty { conflicts[row.path] = versions }
        }
        return conflicts
    }

    /// A local file with a version's bytes: the document itself for the current version, else the
    /// conflict copy in `.stratus/versions` (downloaded on demand).
    ///
    /// - Parameter version: A version from ``unresolvedConflictVersions(of:)`` or ``currentVersion(of:)``.
    /// - Returns: The file's URL; read it, do not change it.
    /// - Throws: ``DocumentsError/Code/notFound`` when the version is gone; `StratusError` from the download.
    public func contents(of version: DocumentVersion) async throws -> URL {
        if version.isCurrent { return url(version.path) }
        return try await serialized { try await self.versionFile(version.id) }
    }

    func versionFile(_ id: String) async throws -> URL {
        guard var local = try state.versions().first(where: { $0.record.recordName == id }) else {
            throw DocumentsError(.notFound, "no conflict version '\(id)'")
        }
        let file = VersionCopies.file(id, in: versionsFolder)
        if local.downloaded { return file }
        try requireWritable("download a conflict version")
        let fresh = try decoded(try await database.record(for: local.record.recordID))
        let fetched = try await fetcher.fetch(fresh, reusing: nil, progress: nil)
        defer { try? FileManager.default.removeItem(at: fetched.file) }
        try Self.replace(file, with: fetched.file, path: fresh.path)
        local.downloaded = true
        try state.save(local)
        return file
    }

    /// Resolves a document's conflict: `version` becomes (or stays) current and every other version is deleted everywhere.
    ///
    /// Keeping a conflict version writes its bytes over the document and uploads them as the new
    /// current content; then the conflict versions' records are deleted, and every device forgets them
    /// at its next sync.
    ///
    /// ```swift
    /// let versions = try await documents.unresolvedConflictVersions(of: "notes.txt")
    /// try await documents.resolveConflict(keeping: versions[0])          // the other device's edit wins
    /// ```
    ///
    /// - Parameter version: The version to keep.
    /// - Throws: ``DocumentsError/Code/notFound`` when the document is gone; ``DocumentsError/Code/occupied`` when
    ///   it changed here since the last sync (sync first); `StratusError` from the server.
    public func resolveConflict(keeping version: DocumentVersion) async throws {
        try requireWritable("resolve conflicts")
        try await serialized {
            if !version.isCurrent {
                let file = try await self.versionFile(version.id)
                guard let row = try self.state.document(named: version.documentID) else {
                    throw DocumentsError(.notFound, "the document of this version is gone", path: version.path)
                }
                // The kept version replaces the file: only bytes this device has synced, never newer ones.
                if row.downloaded, let entry = self.tree.entry(row.path), !row.matches(entry) {
                    throw DocumentsError(.occupied, "the document changed here since the last sync; sync, then resolve", path: row.path)
                }
                try self.coordinateWriting(at: row.path) { temporary in
                    do {
                        try FileManager.default.copyItem(at: file, to: temporary)
                    } catch {
                        throw DocumentsError(.fileSystem, "cannot copy the kept version: \(error)", path: row.path, underlying: error)
                    }
                }
                _ = try await self.performSync()
            }
            try await self.deleteVersions(of: version.documentID)
        }
    }

    private func deleteVersions(of documentID: String) async throws {
        let doomed = try state.versions().filter { $0.record.document == documentID }
        guard !doomed.isEmpty else { return }
        let results = try await database.modifyRecords(saving: [], deleting: doomed.map(\.record.recordID), atomically: false)
        var report = DocumentsSyncReport()
        for version in doomed {
            switch results.deleteResults[version.record.recordID] {
            case .success?:
                try state.removeVersion(named: version.record.recordName)
                VersionCopies.remove(version.record.recordName, in: versionsFolder)
            case .failure(let error)?:
                throw error
            case nil:
                throw DocumentsError(.badRecord, "the server did not answer for version '\(version.record.recordName)'")
            }
        }
        if let path = doomed.first?.record.path {
            self.announce(.resolved(path: (try state.document(named: documentID))?.path ?? path), into: &report)
        }
    }

    /// Saves the `DocumentVersion` records this device made and could not upload yet.
    func uploadPendingVersions(into report: inout DocumentsSyncReport) async throws {
        let pending = try state.versions().filter { !$0.uploaded }
        guard !pending.isEmpty else { return }
        var records: [StratusClient.Record] = []
        var temporary: [URL] = []
        defer { ChunkSnapshots.remove(temporary) }
        for version in pending {
            var record = StratusClient.Record(recordType: DocumentRecord.versionType, recordID: version.record.recordID)
            let copy = VersionCopies.file(version.record.recordName, in: versionsFolder)
            var assets: [Asset] = []
            for (index, hash) in version.record.chunkHashes.enumerated() {
                let length = DocumentRecord.chunkLength(index, size: version.record.size, chunkSize: version.record.chunkSize)
                let chunk = try chunks.snapshot(index, of: version.record.path, chunkSize: version.record.chunkSize, length: length, expecting: hash) {
                    try ChunkedFile.open(copy)
                }
                guard let chunk else {
                    throw DocumentsError(.contentMismatch, "the local copy of conflict version '\(version.record.recordName)' is damaged")
                }
                temporary.append(chunk)
                assets.append(Asset(fileURL: chunk))
            }
            version.record.write(into: &record, chunks: assets)
            records.append(record)
        }
        let results = try await database.modifyRecords(saving: records, deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: false)
        for var version in pending {
            let saved: StratusClient.Record
            switch results.saveResults[version.record.recordID] {
            case .success(let record)?: saved = record
            case .failure(let error)? where error.code == .serverRecordChanged:
                // Saved by an earlier attempt whose answer was lost: the record name is this device's own.
                guard let record = error.serverRecord else { continue }
                saved = record
            case .failure(let error)? where error.code == .zoneNotFound: throw error
            default: continue
            }
            version.uploaded = true
            version.record.changeTag = saved.recordChangeTag
            try state.save(version)
            report.bytesUploaded += version.record.size
            report.chunksUploaded += version.record.chunkHashes.count
        }
    }

    /// Forgets a document's conflict versions locally (their records go with the document or a resolution).
    func removeVersions(of documentID: String) throws {
        for version in try state.versions() where version.record.document == documentID {
            try state.removeVersion(named: version.record.recordName)
            VersionCopies.remove(version.record.recordName, in: versionsFolder)
        }
    }

    static func version(_ record: DocumentRecord, current: Bool, documentID: String) -> DocumentVersion {
        DocumentVersion(
            id: record.recordName, documentID: documentID, path: record.path, size: record.size, contentHash: record.contentHash,
            device: record.device, modificationDate: record.modified, isCurrent: current)
    }
}
