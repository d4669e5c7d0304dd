import Foundation
import StratusHTTP
import StratusLogging
import StratusWire
import Synchronization

extension CloudKitService {
    /// The URL template of asset uploads (the "CDN" POST of Apple's CloudKit Web Services Reference: “Upload the bytes to the CDN”).
    public static let assetUploadTemplate = "/assets/upload/{ticket}"
    /// The URL template of asset downloads; the last segment is the client's `${f}` file name.
    public static let assetDownloadTemplate = "/assets/download/{ticket}/{file...}"

    static func openAssetFiles(_ configuration: AssetConfiguration, logger: Logger) -> (any AssetBlobStore)? {
        if let blobStore = configuration.blobStore { return blobStore }
        guard let directory = configuration.directory else { return nil }
        do {
            return try AssetFileStore(directory: directory)
        } catch {
            logger.error("assets are disabled: cannot use \(directory.path): \(error)")
            return nil
        }
    }

    func registerAssetRoutes(on router: inout Router) {
        router.route(
            .post, Self.assetUploadTemplate, maximumBodySize: configuration.assets.maximumSize,
            check: { [self] head in .stream(try openUpload(head)) }
        ) { [self] request in
            try await uploadAsset(request)
        }
        router.route(.get, Self.assetDownloadTemplate) { [self] request in
            try await downloadAsset(request)
        }
    }

    /// Download URL signing for a request's response; `nil` while assets are off.
    func assetLinks(for request: HTTPRequest) -> AssetLinks? {
        guard assetFiles != nil else { return nil }
        return AssetLinks(
            base: baseURL(for: request), tokens: tokens, expiresAt: configuration.now() + configuration.assets.downloadURLLifetime
        )
    }

    func requireAssetFiles() throws(ServiceError) -> any AssetBlobStore {
        guard let assetFiles else {
            throw ServiceError.badRequest("this server stores no assets: it was started without an asset directory")
        }
        return assetFiles
    }

    /// An admission for asset fields saved by the request's caller into its database.
    func assetAdmission(_ context: RequestContext) -> AssetAdmission {
        AssetAdmission(tokens: tokens, caller: context.caller, database: context.database)
    }

    // MARK: assets/rereference

    /// `assets/rereference`: fresh receipts for asset fields of existing records, to attach them elsewhere.
    ///
    /// Only for records the caller may read: the zone is looked up in the request's database
    /// (the caller's own in the private database, see ``RequestContext/zoneName(of:)``), and in
    /// the public database a record the security roles hide is answered exactly as a missing one.
    func rereferenceAssets(_ context: RequestContext) async throws -> HTTPResponse {
        _ = try requireAssetFiles()
        let request = try context.decode(AssetsRereference.Request.self)
        let limit = configuration.limits.maximumOperationsPerRequest
        guard request.assets.count <= limit else {
            throw ServiceError.badRequest("a request may name at most \(limit) assets; this one names \(request.assets.count)")
        }
        let zoneName = try context.zoneName(of: request.zoneID)
        let database = context.database
        let fields = request.assets
        let policy = database.scope == .public ? ReadPolicy(schema: try await schema(for: context), context: context) : nil
        let held = try await store.read { tx -> [Asset] in
            guard let zone = try tx.zone(named: zoneName, in: database) else {
                throw ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist")
            }
            return try fields.map { field in
                guard let record = try tx.record(named: field.recordName, inZone: zone.rowID), !record.isDeleted, policy?.allows(record) ?? true else {
                    throw Self.recordNotFound(field.recordName, zoneName: zoneName)
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

    // MARK: Garbage collection

    /// Deletes asset contents no record has referenced for the grace period; returns how many.
    ///
    /// `stratus serve` runs it periodically; tests call it with a manual clock.
    @discardableResult
    public func collectAssetGarbage() async throws -> Int {
        guard let files = assetFiles else { return 0 }
        let cutoff = configuration.now() - configuration.assets.gracePeriod
        let trashed = Mutex<[(key: String, location: AssetBlobLocation)]>([])
        var total = 0
        while true {
            do {
                let count = try await store.write { tx -> Int in
                    let keys = try tx.collectableAssets(releasedBefore: cutoff, limit: 500)
                    for key in keys {
                        try tx.deleteAsset(key: key)
                        if let location = try files.trash(key: key) { trashed.withLock { $0.append((key, location)) } }
                    }
                    return keys.count
                }
                files.empty(trashed.withLock { $0.map(\.location) })
                trashed.withLock { $0.removeAll() }
                total += count
                if count < 500 { return total }
            } catch {
                for entry in trashed.withLock({ $0 }) { files.restore(entry.location, key: entry.key) }
                throw error
            }
        }
    }

    /// Collects asset garbage every `interval` until the task is cancelled.
    public func runAssetCollection(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                let count = try await collectAssetGarbage()
                if count > 0 { logger.info("collected \(count) unreferenced asset(s)") }
            } catch {
                logger.error("asset collection failed: \(error)")
            }
            try? await Task.sleep(for: interval)
        }
    }
}
