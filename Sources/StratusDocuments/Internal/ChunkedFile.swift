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

    static func digest(of url: URL, chunkSize: Int64) throws -> FileDigest {
        let handle = try open(url)
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
                throw DocumentsError(.fileSystem, "cannot read '\(url.path)': \(error)", underlying: error)
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

    /// The bytes of chunk `index`.
    static func chunk(_ index: Int, of url: URL, chunkSize: Int64) throws -> Data {
        let handle = try open(url)
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(Int64(index) * chunkSize))
            return try handle.read(upToCount: Int(chunkSize)) ?? Data()
        } catch {
            throw DocumentsError(.fileSystem, "cannot read chunk \(index) of '\(url.path)': \(error)", underlying: error)
        }
    }

    static func open(_ url: URL) throws -> FileHandle {
        do {
            return try FileHandle(forReadingFrom: url)
        } catch {
            throw DocumentsError(.fileSystem, "cannot open '\(url.path)': \(error)", underlying: error)
        }
    }

    /// Writes `data` to a new file (exclusive create), for a chunk upload or a conflict copy.
    static func write(_ data: Data, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: data) else {
            throw DocumentsError(.fileSystem, "cannot write '\(url.path)'")
        }
    }
}
