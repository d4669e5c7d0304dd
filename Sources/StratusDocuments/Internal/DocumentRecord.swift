import Foundation
import StratusClient
import StratusWire

/// The fields of a `Document` or `DocumentVersion` record in the reserved zone, read and written.
///
/// `Document` (record name = a stable UUID, so renames are field updates): `path`, `size`,
/// `contentHash` (SHA-256 hex), `modified`, `device`, `chunkSize`, `chunkHashes` (SHA-256 hex per
/// chunk) and `chunks` (an asset per chunk; absent for an empty file). `DocumentVersion` adds
/// `document`, the record name of the document it is a conflict version of.
struct DocumentRecord: Sendable, Equatable, Codable {
    static let zoneName = "StratusDocuments"
    static let documentType = "Document"
    static let versionType = "DocumentVersion"

    var recordName: String
    var path: String
    var size: Int64
    var contentHash: String
    var modified: Date
    var device: String
    var chunkSize: Int64
    var chunkHashes: [String]
    /// The server's asset per chunk (checksum, size, download URL); empty for content not saved yet.
    var chunks: [Asset]
    var changeTag: ChangeTag?
    /// For a version: the document it belongs to.
    var document: String?

    var isVersion: Bool { document != nil }

    /// Reads a record from the server; everything the engine will act on is checked first.
    ///
    /// The server (or any client of the account) chooses every field, so: `path` must pass
    /// ``DocumentPath`` (relative, no `..`, no control characters, not `.stratus`…), `size` must not
    /// be negative, `chunkSize` must be 1…`maximumChunkSize`, the hashes must be SHA-256 hex, the
    /// chunk count must fit the size and each chunk asset's declared size its share of it. `device`
    /// is kept only in a printable form (no control characters, at most 64 characters). The record
    /// name is never used as a file name.
    ///
    /// - Parameters:
    ///   - record: The record as fetched.
    ///   - maximumChunkSize: The largest chunk accepted (``DocumentsContainer/Configuration/maximumChunkSize``).
    /// - Throws: ``DocumentsError/Code/invalidPath`` for an unsafe path, ``DocumentsError/Code/badRecord``
    ///   naming the missing or bad field otherwise.
    init(_ record: StratusClient.Record, maximumChunkSize: Int64) throws {
        let name = DocumentPath.printable(record.recordID.recordName)
        func bad(_ problem: String) -> DocumentsError {
            DocumentsError(.badRecord, "record '\(name)' of type \(DocumentPath.printable(record.recordType)) \(problem)")
        }
        func missing(_ field: String) -> DocumentsError { bad("has no valid '\(field)' field") }
        guard let path: String = record["path"] else { throw missing("path") }
        do {
            _ = try DocumentPath.validate(path)
        } catch let error as DocumentsError {
            throw DocumentsError(.invalidPath, "record '\(name)' has an unsafe path: \(error.message)", path: error.path, underlying: error)
        }
        guard let size: Int64 = record["size"], size >= 0 else { throw missing("size") }
        guard let hash: String = record["contentHash"], Self.isSHA256(hash) else { throw missing("contentHash") }
        guard let modified: Date = record["modified"] else { throw missing("modified") }
        guard let chunkSize: Int64 = record["chunkSize"], chunkSize > 0 else { throw missing("chunkSize") }
        guard chunkSize <= maximumChunkSize else { throw bad("has chunks of \(chunkSize) bytes; at most \(maximumChunkSize) are accepted") }
        let hashes: [String] = record["chunkHashes"] ?? []
        guard hashes.allSatisfy(Self.isSHA256) else { throw missing("chunkHashes") }
        var assets: [Asset] = []
        switch record.fields["chunks"] {
        case .assetList(let list)?: assets = list
        case .asset(let single)?: assets = [single]
        case nil, .emptyList?: assets = []
        default: throw missing("chunks")
        }
        guard assets.count == hashes.count, hashes.count == Self.chunkCount(size: size, chunkSize: chunkSize) else {
            throw bad("has \(assets.count) chunks and \(hashes.count) chunk hashes for \(size) bytes")
        }
        for (index, asset) in assets.enumerated() {
            let expected = Self.chunkLength(index, size: size, chunkSize: chunkSize)
            if let declared = asset.size, declared != expected { throw bad("declares \(declared) bytes for chunk \(index), not \(expected)") }
        }
        self.recordName = record.recordID.recordName
        self.path = path
        self.size = size
        self.contentHash = hash
        self.modified = modified
        self.device = DocumentPath.printable(record["device"] ?? "unknown", limit: 64)
        self.chunkSize = chunkSize
        self.chunkHashes = hashes
        self.chunks = assets
        self.changeTag = record.recordChangeTag
        if record.recordType == Self.versionType {
            guard let document: String = record["document"] else { throw missing("document") }
            self.document = document
        } else {
            self.document = nil
        }
    }

    init(
        recordName: String, path: String, size: Int64, contentHash: String, modified: Date, device: String, chunkSize: Int64,
        chunkHashes: [String], chunks: [Asset] = [], changeTag: ChangeTag? = nil, document: String? = nil
    ) {
        self.recordName = recordName
        self.path = path
        self.size = size
        self.contentHash = contentHash
        self.modified = modified
        self.device = device
        self.chunkSize = chunkSize
        self.chunkHashes = chunkHashes
        self.chunks = chunks
        self.changeTag = changeTag
        self.document = document
    }

    /// The number of chunks of a file of `size` bytes (no overflow for any non-negative size).
    static func chunkCount(size: Int64, chunkSize: Int64) -> Int {
        Int(size / chunkSize + (size % chunkSize == 0 ? 0 : 1))
    }

    /// The bytes of chunk `index` (all `chunkSize` but the last).
    static func chunkLength(_ index: Int, size: Int64, chunkSize: Int64) -> Int64 {
        min(chunkSize, size - Int64(index) * chunkSize)
    }

    /// Whether `text` is a SHA-256 digest in lowercase hex, as the engine writes them.
    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    static func zoneID() -> ZoneID { ZoneID(zoneName: zoneName) }

    var recordID: RecordID { RecordID(recordName: recordName, zoneID: Self.zoneID()) }

    /// The server's record as this device last saw it (its change tag and fields), to update with a tag check.
    func baseRecord() throws -> StratusClient.Record {
        var wire = StratusWire.Record(
            recordName: recordName, recordType: isVersion ? Self.versionType : Self.documentType, recordChangeTag: changeTag, fields: [:])
        if changeTag == nil { wire.recordChangeTag = nil }
        do {
            return try StratusClient.Record(wire: wire, zoneID: Self.zoneID())
        } catch {
            throw DocumentsError(.badRecord, "cannot rebuild record '\(recordName)': \(error)", path: path, underlying: error)
        }
    }

    /// Writes the metadata fields into `record`; `chunks` are the assets to save (echoed or new files).
    func write(into record: inout StratusClient.Record, chunks newChunks: [Asset]) {
        record["path"] = path
        record["size"] = size
        record["contentHash"] = contentHash
        record["modified"] = modified
        record["device"] = device
        record["chunkSize"] = chunkSize
        if chunkHashes.isEmpty {
            record["chunkHashes"] = nil as FieldValue?
            record["chunks"] = nil as FieldValue?
        } else {
            record["chunkHashes"] = chunkHashes
            record["chunks"] = FieldValue.assetList(newChunks)
        }
        if let document { record["document"] = document }
    }

    /// Writes only the path (a rename without new content).
    func writePath(into record: inout StratusClient.Record) {
        record["path"] = path
    }
}
