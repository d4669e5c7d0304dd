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

    /// Reads a fetched record; throws ``DocumentsError/Code/badRecord`` naming the missing field.
    init(_ record: StratusClient.Record) throws {
        func missing(_ field: String) -> DocumentsError {
            DocumentsError(.badRecord, "record '\(record.recordID.recordName)' of type \(record.recordType) has no valid '\(field)' field")
        }
        guard let path: String = record["path"] else { throw missing("path") }
        guard let size: Int64 = record["size"] else { throw missing("size") }
        guard let hash: String = record["contentHash"] else { throw missing("contentHash") }
        guard let modified: Date = record["modified"] else { throw missing("modified") }
        guard let chunkSize: Int64 = record["chunkSize"], chunkSize > 0 else { throw missing("chunkSize") }
        let hashes: [String] = record["chunkHashes"] ?? []
        var assets: [Asset] = []
        switch record.fields["chunks"] {
        case .assetList(let list)?: assets = list
        case .asset(let single)?: assets = [single]
        case nil, .emptyList?: assets = []
        default: throw missing("chunks")
        }
        guard assets.count == hashes.count, hashes.count == Self.chunkCount(size: size, chunkSize: chunkSize) else {
            throw DocumentsError(
                .badRecord,
                "record '\(record.recordID.recordName)' has \(assets.count) chunks and \(hashes.count) chunk hashes for \(size) bytes")
        }
        self.recordName = record.recordID.recordName
        self.path = path
        self.size = size
        self.contentHash = hash
        self.modified = modified
        self.device = record["device"] ?? "unknown"
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

    static func chunkCount(size: Int64, chunkSize: Int64) -> Int {
        size == 0 ? 0 : Int((size + chunkSize - 1) / chunkSize)
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
