import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension DocumentsContainer {
    /// Pending documents (no change tag: never confirmed, or lost by the server) are looked up before any
    /// byte is sent: one the server has is settled against it (an earlier upload that got through is
    /// adopted, another device's version is a conflict or a remote edit); the others are created.
    ///
    /// - Returns: The plans that create their record.
    func reconcilePending(_ plans: [Plan], into report: inout DocumentsSyncReport) async throws -> [Plan] {
        var creations: [Plan] = []
        for start in stride(from: 0, to: plans.count, by: Database.maximumOperationsPerRequest) {
            let group = plans[start..<min(start + Database.maximumOperationsPerRequest, plans.count)]
            let found = try await database.records(for: group.map(\.base.recordID))
            for var plan in group {
                switch found[plan.base.recordID] {
                case .success(let record)?:
                    try await conflicted(plan, serverRecord: record, into: &report)
                case .failure(let error)? where error.code == .zoneNotFound:
                    throw error
                case .failure(let error)? where error.code != .unknownItem:
                    configuration.logger.warning("cannot look up '\(plan.entry.path)': \(error)")
                default:
                    // Not on the server: created with all of its content (a rename of it carries the content too).
                    plan.digest = plan.digest ?? FileDigest(contentHash: plan.base.contentHash, chunkHashes: plan.base.chunkHashes)
                    creations.append(plan)
                }
            }
        }
        return creations
    }

    /// A save against a stale change tag (or a pending document the server has): keep the server's version
    /// current; this device's content, when it changed here, becomes a conflict version.
    ///
    /// The row keeps its old change tag but describes the file as it is now; then the server's current
    /// record is looked up and applied, which brings its content (and path) over the file.
    func conflicted(_ plan: Plan, serverRecord: StratusClient.Record, into report: inout DocumentsSyncReport) async throws {
        let mine = describe(plan)
        let server: DocumentRecord
        do {
            server = try decoded(serverRecord)
        } catch {
            // The server's version is unsafe (a path with '..'…): this file is no longer that document; it uploads as a new one.
            configuration.logger.warning("'\(plan.entry.path)' leaves its document, whose server version is not valid: \(error)")
            try state.removeDocument(named: mine.recordName)
            return
        }
        let previous = try state.document(named: mine.recordName)
        var row = LocalDocument(
            record: previous?.record ?? mine, downloaded: true, inode: plan.entry.inode, mtimeNs: plan.entry.mtimeNs)
        row.record.path = plan.entry.path
        row.record.contentHash = mine.contentHash
        row.record.size = mine.size
        let contentChanged = mine.contentHash != previous?.record.contentHash
        if case .renamed(_, _, nil) = plan.change, server.path != plan.entry.path {
            // A rename only: apply it over the server's version (its content comes down with the fetch).
            var retry = serverRecord
            retry["path"] = plan.entry.path
            if (try? await database.save(retry)) != nil {
                announce(.renamed(from: server.path, to: plan.entry.path), into: &report)
            }
        } else if contentChanged, server.contentHash != mine.contentHash {
            if let previous, server.contentHash == previous.record.contentHash,
                try await rebase(plan, mine, onto: serverRecord, server: server, into: &report)
            {
                return
            }
            try keepConflictVersion(of: plan.entry, mine, documentID: server.recordName)
            announce(.conflict(path: plan.entry.path, device: configuration.deviceName), into: &report)
        }
        try state.save(row)
        // Bring the server's version over the file now, whether or not the change feed still holds it.
        let current = try decoded(try await database.record(for: server.recordID))
        try await apply(current, into: &report)
    }

    /// The server's version only moved the document (or holds this device's earlier upload): save this
    /// device's content on top of it, echoing only the chunks that record holds, and follow its path.
    ///
    /// - Returns: Whether the rebased save succeeded (else the caller keeps a conflict version).
    private func rebase(
        _ plan: Plan, _ mine: DocumentRecord, onto serverRecord: StratusClient.Record, server: DocumentRecord,
        into report: inout DocumentsSyncReport
    ) async throws -> Bool {
        var document = mine
        document.path = server.path
        let moves = !DocumentPath.sameSpelling(server.path, plan.entry.path)
        guard !moves || tree.isFree(server.path), let chunks = try self.chunks.assets(for: document, at: plan.entry.path, heldBy: server) else {
            return false
        }
        defer { ChunkSnapshots.remove(chunks.temporary) }
        var retry = serverRecord
        document.write(into: &retry, chunks: chunks.assets)
        guard let saved = try? await database.save(retry) else { return false }
        document.changeTag = saved.recordChangeTag
        if let stored = try? decoded(saved) { document.chunks = stored.chunks }
        var downloaded = true
        if moves {
            do {
                try coordinator.write(plan.entry.path, server.path) { try tree.move(plan.entry.path, to: server.path) }
                removeEmptyFolders(above: plan.entry.path)
                announce(.renamed(from: plan.entry.path, to: server.path), into: &report)
            } catch {
                // Something took the path meanwhile: the document stays a placeholder there, this file a new one.
                configuration.logger.warning("cannot follow the server's path '\(server.path)': \(error)")
                downloaded = false
            }
        }
        try state.save(LocalDocument(record: document, downloaded: downloaded, inode: plan.entry.inode, mtimeNs: plan.entry.mtimeNs))
        report.bytesUploaded += chunks.bytes
        report.chunksUploaded += chunks.temporary.count
        announce(.uploaded(path: server.path, bytes: chunks.bytes), into: &report)
        return true
    }

    /// Copies this device's content to the versions folder and queues its `DocumentVersion` record.
    private func keepConflictVersion(of entry: DiskEntry, _ mine: DocumentRecord, documentID: String) throws {
        let name = UUID().uuidString
        let copy = VersionCopies.file(name, in: versionsFolder)
        try coordinator.read(entry.path) {
            do {
                try ChunkedFile.copy(try tree.openForReading(entry.path), to: copy)
            } catch {
                throw DocumentsError(.fileSystem, "cannot keep a conflict copy: \(error)", path: entry.path, underlying: error)
            }
        }
        var version = mine
        version.recordName = name
        version.document = documentID
        version.changeTag = nil
        version.chunks = []
        try state.save(LocalVersion(record: version, uploaded: false, downloaded: true))
    }

    /// Deletes the records of files deleted here (and their conflict versions), unless another device changed
    /// them since (then the fetch brings them back). A pending document is deleted only if the server holds
    /// this device's content for it.
    func delete(_ rows: [LocalDocument], into report: inout DocumentsSyncReport) async throws {
        guard !rows.isEmpty else { return }
        let current = try await database.records(for: rows.map(\.record.recordID), desiredKeys: ["contentHash"])
        var doomed: [LocalDocument] = []
        for var row in rows {
            switch current[row.record.recordID] {
            case .success(let record)?
            where (record["contentHash"] as String?) != row.record.contentHash || (!row.isPending && record.recordChangeTag != row.record.changeTag):
                row.downloaded = false  // edited elsewhere: the edit wins, the fetch downloads it again
                row.record.contentHash = ""
                try state.save(row)
            case .failure(let error)? where error.code == .unknownItem:
                try state.removeDocument(named: row.record.recordName)
            case .failure(let error)? where error.code == .zoneNotFound:
                throw error
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

    /// The server lost the zone: every downloaded document becomes pending (uploaded again under its record
    /// name, with all of its content), placeholders and conflict versions without a local copy are
    /// forgotten (their bytes were only on the server), and the token and zone are reset.
    func forgetServerState(into report: inout DocumentsSyncReport) throws {
        try state.setMeta("token", nil)
        try state.setMeta("zone", nil)
        let count = try makePending(except: [])
        configuration.logger.warning("the server has no documents zone any more; uploading this device's \(count) documents again")
        announce(.serverLost(documents: count), into: &report)
    }

    /// After a fetch of the whole zone (no token): documents this device synced that the server does not
    /// list at all (not even as deleted) are ones it lost; they become pending and upload again in this sync.
    func reclaimDocumentsMissing(from seen: Set<String>, into report: inout DocumentsSyncReport) throws {
        let count = try makePending(except: seen)
        guard count > 0 else { return }
        needsAnotherPass = true
        announce(.serverLost(documents: count), into: &report)
    }

    /// Makes every confirmed document and uploaded version not in `seen` pending; drops those without local bytes.
    ///
    /// - Returns: How many documents will upload again.
    private func makePending(except seen: Set<String>) throws -> Int {
        var count = 0
        for var row in try state.documents() where !row.isPending && !seen.contains(row.record.recordName) {
            guard row.downloaded else {
                try state.removeDocument(named: row.record.recordName)
                continue
            }
            row.record.changeTag = nil
            row.record.chunks = []
            try state.save(row)
            count += 1
        }
        for var version in try state.versions() where version.uploaded && !seen.contains(version.record.recordName) {
            guard version.downloaded else {
                try state.removeVersion(named: version.record.recordName)
                continue
            }
            version.uploaded = false
            version.record.changeTag = nil
            version.record.chunks = []
            try state.save(version)
        }
        return count
    }
}
