import Foundation
import StratusClient
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

    /// `folder/name (device).ext`, or with a number when that is taken too.
    ///
    /// The device name comes from the other device's record: it is reduced to characters a file name
    /// can hold (no `/`, no control characters) and the stem shortened so the name stays a valid component.
    func freePath(near path: String, device: String) throws -> String {
        let folder = DocumentPath.parent(of: path)
        let name = String(path.dropFirst(folder.isEmpty ? 0 : folder.count + 1))
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        // An "extension" too long to keep beside the tag is part of the name: the name is shortened instead.
        let split = dot.flatMap { name[$0...].utf8.count <= Self.longestKeptExtension ? $0 : nil }
        let stem = split.map { String(name[..<$0]) } ?? name
        let suffix = split.map { String(name[$0...]) } ?? ""
        let label = String(
            String.UnicodeScalarView(
                device.unicodeScalars.filter { $0 != "/" && $0 != "\\" && $0.properties.generalCategory != .control }.prefix(64)))
        for attempt in 1...1_000 {
            let tag = attempt == 1 ? " (\(label))" : " (\(label) \(attempt))"
            let room = DocumentPath.maximumComponentBytes - tag.utf8.count - suffix.utf8.count
            let candidate = Self.prefix(of: stem, bytes: max(1, room)) + tag + suffix
            let full = folder.isEmpty ? candidate : folder + "/" + candidate
            guard (try? DocumentPath.validate(full)) != nil else { break }
            if try state.document(atPath: full) == nil, tree.isFree(full) { return full }
        }
        throw DocumentsError(.fileSystem, "no free name near this path", path: path)
    }

    /// The longest extension (with its dot, in bytes) kept whole when a name is shortened to fit a tag.
    private static let longestKeptExtension = 32

    /// The longest start of `text` that fits in `bytes` bytes of UTF-8 (whole characters).
    private static func prefix(of text: String, bytes: Int) -> String {
        var used = 0
        var kept = ""
        for character in text {
            used += character.utf8.count
            guard used <= bytes else { break }
            kept.append(character)
        }
        return kept
    }
}
