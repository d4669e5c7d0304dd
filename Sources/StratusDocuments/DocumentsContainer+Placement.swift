import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension DocumentsContainer {
    /// The local document at `path` if it is not `recordName`.
    func holder(of path: String, other recordName: String) throws -> LocalDocument? {
        guard let row = try state.document(atPath: path), row.record.recordName != recordName else { return nil }
        return row
    }

    /// Two documents created at one path (or at two spellings of one name) on two devices: the one with the
    /// greater record name moves to `name (device).ext` — the same choice on every device, saved to the
    /// server so everyone agrees. Two with the same bytes are one document: the greater record is deleted.
    func settleCollision(_ incoming: DocumentRecord, into report: inout DocumentsSyncReport) async throws {
        guard let local = try holder(of: incoming.path, other: incoming.recordName) else {
            return try await apply(incoming, into: &report)
        }
        if local.downloaded, local.record.contentHash == incoming.contentHash, try await merge(incoming, into: local) { return }
        if incoming.recordName > local.record.recordName {
            return try await moveAside(incoming, into: &report)
        }
        let target = try freePath(near: local.path, device: local.record.device)
        var row = local
        row.record.path = target
        if !local.isPending {
            do {
                row.record.changeTag = try await database.save(try renamed(local.record, to: target)).recordChangeTag
            } catch let error as StratusError where error.code == .serverRecordChanged {
                // Another device moved or changed it first: take its version, then try again.
                guard let server = error.serverRecord.flatMap({ try? decoded($0) }), server.path != incoming.path else { throw error }
                try await apply(server, into: &report)
                return try await apply(incoming, into: &report)
            }
        }  // else: not on the server yet; it uploads at its new path
        if local.downloaded {
            try coordinator.write(local.path, target) { try tree.move(local.path, to: target) }
        }
        try state.save(row)
        announce(.renamed(from: local.path, to: target), into: &report)
        try await apply(incoming, into: &report)
    }

    /// Two records with the same bytes at one path: the greater record name is deleted on the server and
    /// the file here stays, as the smaller one. Not done when the doomed one has conflict versions.
    ///
    /// - Returns: Whether they were merged.
    private func merge(_ incoming: DocumentRecord, into local: LocalDocument) async throws -> Bool {
        let doomed = max(incoming.recordName, local.record.recordName)
        guard try !state.versions().contains(where: { $0.record.document == doomed }) else { return false }
        if !(doomed == local.record.recordName && local.isPending) {  // a pending one never reached the server
            let id = RecordID(recordName: doomed, zoneID: DocumentRecord.zoneID())
            let results = try await database.modifyRecords(saving: [], deleting: [id], atomically: false)
            guard case .success? = results.deleteResults[id] else { return false }
        }
        if doomed == local.record.recordName {
            try state.removeDocument(named: doomed)
            try state.save(LocalDocument(record: incoming, downloaded: true, inode: local.inode, mtimeNs: local.mtimeNs))
        }
        return true
    }

    /// Moves a document aside to `name (device).ext` in its folder on the server (tag-checked: on every
    /// device the same document moves, and a second device's move is a conflict that takes the first's),
    /// then applies the move here. `local` is this device's row when the document is one it has.
    func moveAside(_ record: DocumentRecord, local: LocalDocument? = nil, into report: inout DocumentsSyncReport) async throws {
        let target = try freePath(near: record.path, device: record.device)
        if let local, local.isPending {
            // Not on the server yet: only the file moves, and it uploads at its new path.
            try coordinator.write(local.path, target) { try tree.move(local.path, to: target) }
            var row = local
            row.record.path = target
            try state.save(row)
            return announce(.renamed(from: local.path, to: target), into: &report)
        }
        do {
            var moved = record
            moved.path = target
            moved.changeTag = try await database.save(try renamed(record, to: target)).recordChangeTag
            try await apply(moved, into: &report)
        } catch let error as StratusError where error.code == .serverRecordChanged {
            guard let server = error.serverRecord.flatMap({ try? decoded($0) }), server.path != record.path else { throw error }
            try await apply(server, into: &report)
        }
    }

    /// The record renamed to `path`, to save against its change tag.
    private func renamed(_ record: DocumentRecord, to path: String) throws -> StratusClient.Record {
        var moved = record
        moved.path = path
        var base = try record.baseRecord()
        moved.writePath(into: &base)
        return base
    }

    /// `folder/name (device).ext`, or with a number when that is taken too (``AsideName``).
    func freePath(near path: String, device: String) throws -> String {
        for attempt in 1...1_000 {
            let full = AsideName.candidate(near: path, device: device, attempt: attempt)
            guard (try? DocumentPath.validate(full)) != nil else { break }
            if try state.document(atPath: full) == nil, tree.isFree(full) { return full }
        }
        throw DocumentsError(.fileSystem, "no free name near this path", path: path)
    }

    // MARK: Placing a document whose place is taken

    /// A file already at the record's path that nothing here tracks and that has the record's bytes
    /// (copied by hand, or a device whose state was deleted): it becomes that document, no byte moves.
    func adoptIdenticalFile(for record: DocumentRecord) async throws -> Bool {
        let path = record.path
        guard try state.document(atPath: path) == nil, let entry = tree.entry(path), entry.size == record.size else { return false }
        let tree = self.tree
        let coordinator = self.coordinator
        let digest = try? await Self.offload {
            try coordinator.read(path) { try ChunkedFile.digest(of: try tree.openForReading(path), name: path, chunkSize: record.chunkSize) }
        }
        guard let digest, digest.contentHash == record.contentHash else { return false }
        let seen = digest.observed ?? entry
        try state.save(LocalDocument(record: record, downloaded: true, inode: seen.inode, mtimeNs: seen.mtimeNs))
        return true
    }

    /// A document whose place is taken here. Rules, the same on every device:
    /// - a file this device has not synced (``DocumentsError/Code/occupied``): nothing is replaced; the
    ///   change waits, that file uploads at the next sync, and the collision rule settles the two;
    /// - an empty folder (never synced: empty folders are not) gives way;
    /// - a folder with content keeps the name and the file moves aside (`name (device)`), on the server;
    /// - a synced file where a folder of the path goes moves aside the same way, then the folder is made;
    /// - a symbolic link (or a device file) stays, and the document stays a placeholder, reported.
    func placeBlocked(
        _ record: DocumentRecord, row: LocalDocument?, because error: DocumentsError, retrying: Bool, into report: inout DocumentsSyncReport
    ) async throws {
        if error.code == .occupied {
            configuration.logger.info("'\(record.path)' waits: \(error.message)")
            tokenHeld = true
            return
        }
        guard !retrying else { return try keepAsPlaceholder(record, because: error.message, into: &report) }
        switch tree.kind(record.path) {
        case .folder?:
            if tree.removeEmptyFolder(record.path) { return try await apply(record, retrying: true, into: &report) }
            try await moveAside(record, into: &report)
        case .link?:
            try keepAsPlaceholder(record, because: "a symbolic link is where the document goes", into: &report)
        case .special?:
            try keepAsPlaceholder(record, because: "a special file is where the document goes", into: &report)
        case .file?, nil:
            guard let (ancestor, kind) = tree.blockedAncestor(of: record.path) else {
                return try keepAsPlaceholder(record, because: error.message, into: &report)
            }
            guard case .file(let entry) = kind else {
                return try keepAsPlaceholder(record, because: "a symbolic link is on the way, at '\(ancestor)'", into: &report)
            }
            guard let owner = try state.document(atPath: ancestor), owner.matches(entry), DocumentPath.sameSpelling(owner.path, ancestor)
            else {
                tokenHeld = true  // a file not synced yet: it uploads first, then this rule applies to it
                return
            }
            try await moveAside(owner.record, local: owner, into: &report)
            try await apply(record, retrying: true, into: &report)
        }
    }

    /// A document stays a placeholder because its place is blocked here (reported, logged); a file it was
    /// at stays too, and uploads as a new document.
    private func keepAsPlaceholder(_ record: DocumentRecord, because reason: String, into report: inout DocumentsSyncReport) throws {
        configuration.logger.warning("'\(record.path)' stays a placeholder: \(reason)")
        try state.save(LocalDocument(record: record, downloaded: false, inode: nil, mtimeNs: nil))
        announce(.skipped(path: record.path, reason: reason), into: &report)
        announce(.placeholder(path: record.path, size: record.size), into: &report)
    }
}
