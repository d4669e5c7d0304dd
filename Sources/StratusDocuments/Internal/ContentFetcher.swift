import Foundation
import StratusClient
import StratusCrypto

/// A document's content assembled in a temporary file, checked against its hashes, not yet in place.
struct FetchedContent: Sendable {
    var file: URL
    /// Bytes and chunks that came over the network (the rest was reused from the old local file).
    var bytes: Int64
    var chunks: Int
}

/// Downloads a document's chunks into a temporary file in `.stratus/tmp`, reusing the chunks the old
/// local file already has (same SHA-256). Needs no actor: several run at once.
struct ContentFetcher: Sendable {
    let tree: DocumentTree
    let temporaryFolder: URL
    let coordinator: FileCoordinator
    let timeout: Duration
    let transport: (any HTTPTransport)?

    /// The content of `record` in a new temporary file the caller moves or deletes.
    ///
    /// Every chunk is checked against its hash and the whole file against `contentHash`; on failure the
    /// temporary file is deleted and the error thrown.
    func fetch(
        _ record: DocumentRecord, reusing old: LocalDocument?, progress: (@Sendable (DocumentsContainer.DownloadProgress) -> Void)?
    ) async throws -> FetchedContent {
        let temporary = temporaryFolder.appendingPathComponent("download-" + UUID().uuidString)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil), let output = try? FileHandle(forWritingTo: temporary)
        else {
            throw DocumentsError(.fileSystem, "cannot create a temporary file in '\(temporaryFolder.path)'", path: record.path)
        }
        do {
            defer { try? output.close() }
            let fetched = try await write(record, reusing: old, to: output, progress: progress)
            return FetchedContent(file: temporary, bytes: fetched.bytes, chunks: fetched.chunks)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    private func write(
        _ record: DocumentRecord, reusing old: LocalDocument?, to output: FileHandle,
        progress: (@Sendable (DocumentsContainer.DownloadProgress) -> Void)?
    ) async throws -> (bytes: Int64, chunks: Int) {
        var whole = SHA256()
        var completed: Int64 = 0
        var downloaded: (bytes: Int64, chunks: Int) = (0, 0)
        let old = old.flatMap { $0.downloaded && $0.record.chunkSize == record.chunkSize ? $0 : nil }
        for (index, hash) in record.chunkHashes.enumerated() {
            var data: Data?
            if let old, let position = old.record.chunkHashes.firstIndex(of: hash) {
                data = try? coordinator.read(old.path) {
                    try ChunkedFile.chunk(position, of: try tree.openForReading(old.path), name: old.path, chunkSize: record.chunkSize)
                }
                if let bytes = data, SHA256.hash(bytes).hexString != hash { data = nil }
            }
            if data == nil {
                let bytes = try await record.chunks[index].data(timeout: timeout, transport: transport)
                let expected = DocumentRecord.chunkLength(index, size: record.size, chunkSize: record.chunkSize)
                guard Int64(bytes.count) == expected else {
                    throw DocumentsError(.contentMismatch, "chunk \(index) has \(bytes.count) bytes, not \(expected)", path: record.path)
                }
                guard SHA256.hash(bytes).hexString == hash else {
                    throw DocumentsError(.contentMismatch, "chunk \(index) does not match its hash", path: record.path)
                }
                downloaded.bytes += Int64(bytes.count)
                downloaded.chunks += 1
                data = bytes
            }
            guard let data else { continue }
            do {
                try output.write(contentsOf: data)
            } catch {
                throw DocumentsError(.fileSystem, "cannot write the download: \(error)", path: record.path, underlying: error)
            }
            whole.update(data)
            completed += Int64(data.count)
            progress?(DocumentsContainer.DownloadProgress(completedBytes: completed, totalBytes: record.size))
        }
        guard completed == record.size, whole.finalize().hexString == record.contentHash else {
            throw DocumentsError(.contentMismatch, "the downloaded content does not match the document's hash", path: record.path)
        }
        return downloaded
    }
}
