import Foundation
import StratusHTTP
import StratusLogging
import StratusWire

/// Assets: `assets/upload` and `assets/rereference`, and the routes of the bytes —
/// `POST /assets/upload/{ticket}` and `GET /assets/download/{ticket}/{file}` (design note 0007).
///
/// The routes exist whether or not the server stores assets; without an asset store every
/// endpoint answers that it stores none.
struct AssetEndpoints: EndpointGroup {
    /// The URL template of asset uploads (the "CDN" POST of Apple's CloudKit Web Services Reference: “Upload the bytes to the CDN”).
    static let uploadTemplate = "/assets/upload/{ticket}"
    /// The URL template of asset downloads; the last segment is the client's `${f}` file name.
    static let downloadTemplate = "/assets/download/{ticket}/{file...}"

    let store: any RecordStore
    /// Where asset contents live; `nil` while assets are off.
    let files: (any AssetBlobStore)?
    let schemas: SchemaCache
    /// Seals upload tickets, receipts and download tickets.
    let tokens: TokenCodec
    let configuration: ServiceConfiguration
    let baseURL: PublicBaseURL
    /// Charges a forged, expired or spent upload URL to its client address.
    let throttle: RequestThrottle
    /// Upload URLs in use or spent on this node (each works once).
    let uploadTickets: UploadTicketLedger

    func register(on operations: inout DatabaseOperations) {
        operations.on(.assetsUpload) { try await requestAssetUploads($0) }
        operations.on(.assetsRereference) { try await rereferenceAssets($0) }
    }

    func register(on router: inout Router) {
        router.route(
            .post, Self.uploadTemplate, maximumBodySize: configuration.assets.maximumSize, check: { head in .stream(try openUpload(head)) }
        ) { request in
            try await uploadAsset(request)
        }
        router.route(.get, Self.downloadTemplate) { request in
            try await downloadAsset(request)
        }
    }

    /// The asset store `configuration` names (a directory, or a store of its own); `nil`, logged, when it cannot be used.
    static func openFiles(_ configuration: AssetConfiguration, logger: Logger) -> (any AssetBlobStore)? {
        if let blobStore = configuration.blobStore { return blobStore }
        guard let directory = configuration.directory else { return nil }
        do {
            return try AssetFileStore(directory: directory)
        } catch {
            logger.error("assets are disabled: cannot use \(directory.path): \(error)")
            return nil
        }
    }

    func requireAssetFiles() throws(ServiceError) -> any AssetBlobStore {
        guard let files else {
            throw ServiceError.badRequest("this server stores no assets: it was started without an asset directory")
        }
        return files
    }

    // MARK: assets/rereference

    /// `assets/rereference`: fresh receipts for asset fields of existing records, to attach them elsewhere.
    ///
    /// Only for records the caller may read: the zone is looked up in the request's database
    /// (the caller's own in the private database, see ``DatabaseRequest/zoneName(of:)``), and in
    /// the public database a record the security roles hide is answered exactly as a missing one.
    func rereferenceAssets(_ context: DatabaseRequest) async throws -> HTTPResponse {
        _ = try requireAssetFiles()
        let request = try context.decode(AssetsRereference.Request.self)
        let limit = configuration.limits.maximumOperationsPerRequest
        guard request.assets.count <= limit else {
            throw ServiceError.badRequest("a request may name at most \(limit) assets; this one names \(request.assets.count)")
        }
        let zoneName = try context.zoneName(of: request.zoneID)
        let database = context.database
        let fields = request.assets
        let policy = database.scope == .public ? ReadPolicy(schema: try await schemas.schema(for: context, in: store), context: context) : nil
        let held = try await store.read { tx -> [Asset] in
            guard let zone = try tx.zone(named: zoneName, in: database) else {
                throw ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist")
            }
            return try fields.map { field in
                guard let record = try tx.record(named: field.recordName, inZone: zone.rowID), !record.isDeleted, policy?.allows(record) ?? true else {
                    throw ServiceError.recordNotFound(field.recordName, zoneName: zoneName)
                }
                guard let value = record.fields[field.fieldName], let asset = RecordFilterEvaluator.elements(of: value).first?.assetValue else {
                    throw ServiceError.badRequest("field '\(field.fieldName)' of record '\(field.recordName)' holds no asset")
                }
                return asset
            }
        }
        let assets = held.map { asset -> Asset in
            guard let checksum = asset.fileChecksum, let key = AssetChecksum.key(forFileChecksum: checksum), let size = asset.size else {
                return asset
            }
            let receipt = AssetReceipt(k: key, s: size, c: context.container, e: context.environment.rawValue, u: context.caller)
            return Asset(
                fileChecksum: checksum, size: size, referenceChecksum: AssetChecksum.opaque("reference", key: key),
                wrappingKey: AssetChecksum.opaque("wrapping", key: key), receipt: tokens.seal(receipt, kind: .assetReceipt)
            )
        }
        return try context.encode(AssetsRereference.Response(assets: assets), numbersAsStrings: nil)
    }

    // MARK: Download

    /// `GET /assets/download/{ticket}/{file}`: the bytes, whole or one `Range`, for an unexpired signed URL.
    func downloadAsset(_ request: HTTPRequest) async throws -> HTTPResponse {
        let files = try requireAssetFiles()
        guard let ticket = tokens.open(try request.parameter("ticket"), kind: .assetDownload, as: AssetDownloadTicket.self) else {
            throw ServiceError(.accessDenied, "this download URL is not valid for this server")
        }
        guard ticket.x > configuration.now() else {
            throw ServiceError(.accessDenied, "this download URL has expired; fetch the record again for a new one")
        }
        let data: Data
        do {
            data = try files.read(key: ticket.k)
        } catch {
            throw ServiceError(.notFound, "this asset is no longer stored")
        }
        return ByteRange.response(for: data, rangeHeader: request.headers["Range"])
    }
}
