import Foundation
import StratusWire

/// Uploads the assets of records being saved (`Asset(fileURL:)`) and puts the receipts in their fields.
///
/// One job, the first half of a save with assets: a database's ``Database/modifyRecords(saving:deleting:savePolicy:atomically:)``
/// hands its records here before it sends them.
struct AssetUploader: Sendable {
    /// The connection to the server.
    let client: ServiceClient
    /// The database the records are saved in.
    let scope: DatabaseScope

    /// One asset (or asset-list element) waiting to be uploaded.
    private struct PendingUpload {
        var record: Int
        var field: String
        var element: Int?
        var file: URL
    }

    /// Uploads every asset made with `Asset(fileURL:)` in `records` and puts the receipts in their fields.
    ///
    /// Per zone, one `assets/upload` (≤ 200 fields) asks for URLs; each file is `POST`ed to its URL and
    /// the CDN's `singleFile` replaces the field value (Apple's CloudKit Web Services Reference: “Assets”).
    func uploadingAssets(of records: [Record]) async throws -> [Record] {
        var pending: [PendingUpload] = []
        for (index, record) in records.enumerated() {
            for (field, value) in record.values.sorted(by: { $0.key < $1.key }) {
                switch value {
                case .asset(let asset):
                    if let file = asset.localFileURL { pending.append(PendingUpload(record: index, field: field, element: nil, file: file)) }
                case .assetList(let assets):
                    for (position, asset) in assets.enumerated() {
                        if let file = asset.localFileURL {
                            pending.append(PendingUpload(record: index, field: field, element: position, file: file))
                        }
                    }
                default: continue
                }
            }
        }
        guard !pending.isEmpty else { return records }
        var updated = records
        for (zoneID, uploads) in Database.grouped(pending, by: { records[$0.record].recordID.zoneID }) {
            for chunk in Database.chunks(of: uploads, size: Database.maximumOperationsPerRequest) {
                let tokens = chunk.map {
                    AssetsUpload.Token(
                        recordName: records[$0.record].recordID.recordName, recordType: records[$0.record].recordType, fieldName: $0.field)
                }
                let response = try await client.send(
                    AssetsUpload.self, AssetsUpload.Request(tokens: tokens, zoneID: Database.wireZone(zoneID)), database: scope, idempotent: true)
                guard response.tokens.count == chunk.count else {
                    throw StratusError(.serverResponseLost, "assets/upload answered \(response.tokens.count) URLs for \(chunk.count) assets")
                }
                for (upload, target) in zip(chunk, response.tokens) {
                    let asset = try await self.upload(upload.file, to: target.url)
                    switch (updated[upload.record].values[upload.field], upload.element) {
                    case (.assetList(var list)?, let position?):
                        list[position] = asset
                        updated[upload.record].values[upload.field] = .assetList(list)
                    default:
                        updated[upload.record].values[upload.field] = .asset(asset)
                    }
                }
            }
        }
        return updated
    }

    /// `POST`s a file's bytes to an upload URL; returns the `singleFile` to save.
    private func upload(_ file: URL, to urlString: String) async throws -> Asset {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: file)
        } catch {
            throw StratusError(.invalidArguments, "cannot read asset file '\(file.path)': \(error)", underlying: error)
        }
        guard let url = URL(string: urlString) else {
            throw StratusError(.serverResponseLost, "assets/upload answered an invalid URL '\(urlString)'")
        }
        let request = TransportRequest(
            method: "POST", url: url, headers: [HTTPHeaderField("Content-Type", "application/octet-stream")], body: bytes,
            timeout: client.configuration.requestTimeout)
        let response: TransportResponse
        do {
            response = try await client.transport.send(request)
        } catch {
            guard let mapped = StratusError.transport(error), !Task.isCancelled else { throw CancellationError() }
            throw mapped
        }
        guard response.status == 200 else { throw ServiceClient.error(from: response) }
        do {
            return try WireCoding.decode(AssetUploadReceipt.self, from: response.body).singleFile
        } catch {
            throw StratusError(.serverResponseLost, "cannot decode the asset upload reply: \(error)", underlying: error)
        }
    }
}
