import Foundation
import StratusCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's SHA-256 and the SHA-256 of each fixed-size chunk.
struct FileDigest: Sendable, Hashable {
    var contentHash: String
    var chunkHashes: [String]
    /// The file as the descriptor that was hashed saw it (size, inode, modification time), when known:
    /// its size is exactly the number of bytes hashed, so a record made from it agrees with itself.
    var observed: DiskEntry? = nil
}

/// Reads files in fixed-size chunks: hashing, and copying one chunk out to its own file.
enum ChunkedFile {
    /// How much is read at a time while hashing.
    private static let readSize = 1 << 20

    /// The digest of the file `handle` reads (closed afterwards); `name` appears in errors.
    ///
    /// The file is read **once, for its size and its hashes**: the size is taken from `fstat` of the open
    /// descriptor and exactly that many bytes are hashed. If the file changes while it is read (its size
    /// or modification time differ afterwards, or it ends early), the digest would describe bytes that
    /// never were the file: ``DocumentsError/Code/contentMismatch`` is thrown and the file waits for the next sync.
    static func digest(of handle: FileHandle, name: String, chunkSize: Int64) throws -> FileDigest {
        defer { try? handle.close() }
        let before = try status(of: handle, path: name)
        var whole = SHA256()
        var chunk = SHA256()
        var inChunk: Int64 = 0
        var total: Int64 = 0
        var hashes: [String] = []
        while total < before.size {
            let want = Int(min(Int64(readSize), chunkSize - inChunk, before.size - total))
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
            total += Int64(data.count)
            if inChunk == chunkSize {
                hashes.append(chunk.finalize().hexString)
                chunk = SHA256()
                inChunk = 0
            }
        }
        if inChunk > 0 { hashes.append(chunk.finalize().hexString) }
        let after = try status(of: handle, path: name)
        guard total == before.size, after.size == before.size, after.mtimeNs == before.mtimeNs else {
            throw DocumentsError(.contentMismatch, "'\(name)' changed while it was read", path: name)
        }
        return FileDigest(contentHash: whole.finalize().hexString, chunkHashes: hashes, observed: before)
    }

    /// The metadata of an open file.
    private static func status(of handle: FileHandle, path: String) throws -> DiskEntry {
        var info = stat()
        guard fstat(handle.fileDescriptor, &info) == 0 else {
            throw DocumentsError(.fileSystem, "cannot read the metadata of '\(path)': \(String(cString: strerror(errno)))", path: path)
        }
        return DiskScanner.entry(path, info)
    }

    /// The bytes of chunk `index` of the file `handle` reads (closed afterwards); `name` appears in errors.
    ///
    /// `chunkSize` is at most ``DocumentRecord/Limits/maximumChunkSize`` for a record from the
    /// network, so the offset cannot overflow and the read stays bounded.
    /// `length` reads exactly the chunk's share of a record's size (the last chunk is shorter), so bytes
    /// appended since the scan are not taken for part of it.
    static func chunk(_ index: Int, of handle: FileHandle, name: String, chunkSize: Int64, length: Int64? = nil) throws -> Data {
        defer { try? handle.close() }
        let (offset, overflow) = Int64(index).multipliedReportingOverflow(by: chunkSize)
        guard !overflow, offset >= 0, chunkSize > 0 else {
            throw DocumentsError(.badRecord, "chunk \(index) of \(chunkSize) bytes is past any file", path: name)
        }
        do {
            try handle.seek(toOffset: UInt64(offset))
            return try handle.read(upToCount: Int(min(chunkSize, length ?? chunkSize))) ?? Data()
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
