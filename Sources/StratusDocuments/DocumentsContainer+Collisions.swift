import Foundation
import StratusClient
import StratusWire

extension DocumentsContainer {
    /// The local document at `path` if it is not `recordName`.
    func holder(of path: String, other recordName: String) throws -> LocalDocument? {
        guard let row = try state.document(atPath: path), row.record.recordName != recordName else { return nil }
        return row
    }

    /// Two documents created at one path on two devices: the one with the greater record name moves to
    /// `name (device).ext` — the same choice on every device, saved to the server so everyone agrees.
    func settleCollision(_ incoming: DocumentRecord, into report: inout DocumentsSyncReport) async throws {
        guard let local = try holder(of: incoming.path, other: incoming.recordName) else {
            return try await apply(incoming, into: &report)
        }
        if incoming.recordName > local.record.recordName {
            var moved = incoming
            moved.path = try freePath(near: incoming.path, device: incoming.device)
            let saved = try await database.save(try renamed(incoming, to: moved.path))
            moved.changeTag = saved.recordChangeTag
            try await apply(moved, into: &report)
            return
        }
        let target = try freePath(near: local.path, device: local.record.device)
        let saved: StratusClient.Record
        do {
            saved = try await database.save(try renamed(local.record, to: target))
        } catch let error as StratusError where error.code == .serverRecordChanged {
            // Another device moved or changed it first: take its version, then try again.
            guard let server = error.serverRecord.flatMap({ try? decoded($0) }), server.path != incoming.path else { throw error }
            try await apply(server, into: &report)
            return try await apply(incoming, into: &report)
        }
        var row = local
        row.record.path = target
        row.record.changeTag = saved.recordChangeTag
        if local.downloaded {
            try coordinator.write(local.path, target) { try tree.move(local.path, to: target) }
        }
        try state.save(row)
        announce(.renamed(from: local.path, to: target), into: &report)
        try await apply(incoming, into: &report)
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
        let stem = dot.map { String(name[..<$0]) } ?? name
        let suffix = dot.map { String(name[$0...]) } ?? ""
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
