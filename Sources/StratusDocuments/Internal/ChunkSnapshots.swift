import Foundation
import StratusClient
import StratusCrypto
import StratusWire

/// Copies the chunks of documents out to `.stratus/tmp` for the SDK to upload, each under the path's
/// read lock and checked against the hash the scan saw.
///
/// One job: what an upload sends of a file. The container's uploads, rebased conflicts and pending
/// conflict versions all take their chunks from here.
struct ChunkSnapshots: Sendable {
    /// Every file-system action on a document path goes through it.
    let tree: DocumentTree
    /// The per-path locks the app and the sync engine share.
    let coordinator: FileCoordinator
    /// `.stratus/tmp`, where the copied-out chunks go.
    let temporaryFolder: URL

    /// The chunk assets of `document` (whose file is at `path`): a chunk the server's record `held` holds
    /// (same hash and chunk size) is echoed, every other one is copied out to upload.
    ///
    /// Only a record the server confirmed (with a change tag) holds chunks: a pending record's chunks,
    /// or those of a version this device last saw, are not echoed to a record that does not have them.
    /// - Returns: `nil` when the file no longer has the hashes the scan saw.
    func assets(
        for document: DocumentRecord, at path: String, heldBy held: DocumentRecord?
    ) throws
        -> (assets: [Asset], temporary: [URL], bytes: Int64)?
    {
        var assets: [Asset] = []
        var temporary: [URL] = []
        var bytes: Int64 = 0
        for (index, hash) in document.chunkHashes.enumerated() {
            if let held, held.changeTag != nil, held.chunkSize == document.chunkSize, let old = held.chunkHashes.firstIndex(of: hash),
                old < held.chunks.count, let checksum = held.chunks[old].fileChecksum
            {
                assets.append(Asset(fileChecksum: checksum, size: held.chunks[old].size))
                continue
            }
            let length = DocumentRecord.chunkLength(index, size: document.size, chunkSize: document.chunkSize)
            let file = try snapshot(index, of: path, chunkSize: document.chunkSize, length: length, expecting: hash) {
                try tree.openForReading(path)
            }
            guard let file else {
                Self.remove(temporary)
                return nil  // written again since the scan: the next sync uploads the new content
            }
            bytes += length
            temporary.append(file)
            assets.append(Asset(fileURL: file))
        }
        return (assets, temporary, bytes)
    }

    /// Copies chunk `index` of a file (`open` opens it) to `.stratus/tmp` (under the path's read lock) for the
    /// SDK to upload; `nil` when its bytes no longer have the hash the scan saw (the file was written meanwhile).
    func snapshot(
        _ index: Int, of path: String, chunkSize: Int64, length: Int64, expecting hash: String, open: () throws -> FileHandle
    ) throws -> URL? {
        let data = try coordinator.read(path) {
            try ChunkedFile.chunk(index, of: try open(), name: path, chunkSize: chunkSize, length: length)
        }
        guard Int64(data.count) == length, SHA256.hash(data).hexString == hash else { return nil }
        let chunkFile = temporaryFolder.appendingPathComponent("up-" + UUID().uuidString)
        try ChunkedFile.write(data, to: chunkFile)
        return chunkFile
    }

    /// Deletes copied-out chunks (their upload is over, or never happens).
    static func remove(_ files: [URL]) {
        for file in files { try? FileManager.default.removeItem(at: file) }
    }
}
