import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension DocumentsContainer {
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
