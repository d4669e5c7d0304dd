import Foundation
import StratusCrypto
import StratusWire

/// A problem with an export directory or with what is being exported, named for the operator.
public struct ExportError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the file, line or value.
    public var description: String

    /// Creates an error.
    public init(_ description: String) {
        self.description = description
    }
}

/// Writes one file of an export: buffered, hashed and counted on the way.
final class ExportFileWriter {
    let name: String
    private let handle: FileHandle
    private var buffer = Data()
    private var hash = SHA256()
    private var size: Int64 = 0
    /// Lines (or objects) written.
    private(set) var count = 0

    /// Creates `name` (a path relative to `directory`, its folder made if needed), mode 0600.
    init(_ name: String, in directory: URL) throws {
        self.name = name
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw ExportError("cannot create \(url.path)")
        }
        handle = try FileHandle(forWritingTo: url)
    }

    /// Appends `value` as one canonical JSON line.
    func writeLine(_ value: some Encodable) throws {
        append(try WireCoding.encode(value))
        append(Data([0x0A]))
        count += 1
    }

    /// Appends raw bytes.
    func append(_ bytes: Data) {
        hash.update(bytes)
        size += Int64(bytes.count)
        buffer.append(bytes)
        if buffer.count >= 1 << 20 { flushBuffer() }
    }

    private func flushBuffer() {
        guard !buffer.isEmpty else { return }
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, syncs and closes the file; returns its manifest entry.
    func finish() throws -> ExportManifest.File {
        flushBuffer()
        try handle.synchronize()
        try handle.close()
        return ExportManifest.File(name: name, size: size, sha256: hash.finalize().hexString)
    }
}

/// Reads one file of an export, checking it against its manifest entry as it goes.
///
/// The bytes are hashed as they are read, so what was checked is what was loaded (no second
/// read an attacker could race); ``finish()`` throws unless the size and SHA-256 match, and an
/// import calls it before it commits.
final class ExportFileReader {
    let entry: ExportManifest.File
    private let handle: FileHandle
    private var hash = SHA256()
    private var size: Int64 = 0
    private var pending = Data()
    /// Where the unread part of ``pending`` begins.
    private var cursor = 0
    private var atEnd = false
    /// The line number of the last line returned (1-based).
    private(set) var lineNumber = 0

    init(_ entry: ExportManifest.File, in directory: URL) throws {
        self.entry = entry
        let url = directory.appendingPathComponent(entry.name)
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ExportError("cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    deinit { try? handle.close() }

    /// The next piece of the file (at most 1 MiB), hashed; `nil` at the end.
    func nextChunk() throws -> Data? {
        guard !atEnd else { return nil }
        let piece = try handle.read(upToCount: 1 << 20) ?? Data()
        if piece.isEmpty {
            atEnd = true
            return nil
        }
        size += Int64(piece.count)
        guard size <= entry.size else { throw ExportError("\(entry.name) is larger than the manifest says (\(entry.size) bytes)") }
        hash.update(piece)
        return piece
    }

    /// The next line without its newline; `nil` at the end of the file.
    func nextLine() throws -> Data? {
        while true {
            if let newline = pending[cursor...].firstIndex(of: 0x0A) {
                let line = Data(pending[cursor..<newline])
                cursor = newline + 1
                lineNumber += 1
                return line
            }
            guard pending.count - cursor <= ExportFormat.maximumLineSize else {
                throw ExportError("\(entry.name) line \(lineNumber + 1) is longer than \(ExportFormat.maximumLineSize) bytes")
            }
            guard let piece = try nextChunk() else {
                guard cursor == pending.count else { throw ExportError("\(entry.name) does not end with a newline: it is truncated") }
                return nil
            }
            // NB: the consumed prefix is dropped once per chunk, not once per line.
            pending = Data(pending[cursor...])
            cursor = 0
            pending.append(piece)
        }
    }

    /// Decodes the next line as `type`; `nil` at the end of the file.
    func next<T: Decodable>(_ type: T.Type) throws -> T? {
        guard let line = try nextLine() else { return nil }
        do {
            return try WireCoding.decode(type, from: line)
        } catch {
            throw ExportError("\(entry.name) line \(lineNumber): \(error)")
        }
    }

    /// Reads what is left and throws unless the file is exactly what the manifest lists.
    func finish() throws {
        while try nextChunk() != nil {}
        guard size == entry.size, hash.finalize().hexString == entry.sha256 else {
            throw ExportError("\(entry.name) does not match the manifest (its size or SHA-256 differ): the export is damaged or was changed")
        }
    }
}
