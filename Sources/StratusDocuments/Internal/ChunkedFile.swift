import Foundation
import StratusCrypto

/// A file's SHA-256 and the SHA-256 of each fixed-size chunk.
struct FileDigest: Sendable, Hashable {
    var contentHash: String
    var chunkHashes: [String]
}

/// Reads files in fixed-size chunks: hashing, and copying one chunk out to its own file.
enum ChunkedFile {
    /// How much is read at a time while hashing.
    private static let readSize = 1 << 20

    /// The digest of the file `handle` reads (closed afterwards); `name` appears in errors.
    static func digest(of handle: FileHandle, name: String, chunkSize: Int64) throws -> FileDigest {
        defer { try? handle.close() }
        var whole = SHA256()
        var chunk = SHA256()
        var inChunk: Int64 = 0
        var hashes: [String] = []
        while true {
            let want = Int(min(Int64(readSize), chunkSize - inChunk))
            let data: Data
            do {
                data = try handle.read(upToCount: want) ?? Data()
            } catch {
                throw DocumentsError(.fileSystem, "cannot read '\(name)': \(error)", path: name, underlying: error)
            }
            if data.isEmpty { break }
            whole.update(data)
            chunk.update(data)
            inChunk += Int64(data.count)
            if inChunk == chunkSize {
                hashes.append(chunk.finalize().hexString)
                chunk = SHA256()
                inChunk = 0
            }
        }
        if inChunk > 0 { hashes.append(chunk.finalize().hexString) }
        return FileDigest(contentHash: whole.finalize().hexString, chunkHashes: hashes)
    }

    /// The bytes of chunk `index` of the file `handle` reads (closed afterwards); `name` appears in errors.
    ///
    /// `chunkSize` is at most ``DocumentRecord/Limits/maximumChunkSize`` for a record from the
    /// network, so the offset cannot overflow and the read stays bounded.
    static func chunk(_ index: Int, of handle: FileHandle, name: String, chunkSize: Int64) throws -> Data {
        defer { try? handle.close() }
        let (offset, overflow) = Int64(index).multipliedReportingOverflow(by: chunkSize)
        guard !overflow, offset >= 0, chunkSize > 0 else {
            throw DocumentsError(.badRecord, "chunk \(index) of \(chunkSize) bytes is past any file", path: name)
        }
        do {
            try handle.seek(toOffset: UInt64(offset))
            return try handle.read(upToCount: Int(chunkSize)) ?? Data()
        } catch {
            throw DocumentsError(.fileSystem, "cannot read chunk \(index) of '\(name)': \(error)", path: name, underlying: error)
        }
    }

    static func open(_ url: URL) throws -> FileHandle {
        do {
            return try FileHandle(forReadingFrom: url)
        } catch {
            throw DocumentsError(.fileSystem, "cannot open '\(url.path)': \(error)", underlying: error)
        }
    }

    /// Copies what `source` reads (closed afterwards) to a new file at `url`, a megabyte at a time.
    static func copy(_ source: FileHandle, to url: URL) throws {
        defer { try? source.close() }
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw DocumentsError(.fileSystem, "cannot create '\(url.path)'")
        }
        let target = try FileHandle(forWritingTo: url)
        defer { try? target.close() }
        while let data = try source.read(upToCount: readSize), !data.isEmpty { try target.write(contentsOf: data) }
    }

    /// Writes `data` to a new file (exclusive create), for a chunk upload or a conflict copy.
    static func write(_ data: Data, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: data) else {
            throw DocumentsError(.fileSystem, "cannot write '\(url.path)'")
        }
    }
}
