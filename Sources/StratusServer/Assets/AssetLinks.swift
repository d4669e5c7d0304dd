import StratusHTTP
import StratusWire

/// Adds signed, expiring `downloadURL`s to the asset fields of records in a response.
///
/// The URL is the capability: only a caller who may fetch the record receives
/// it, it names one content, cannot be forged (HMAC under the server secret)
/// and stops working after ``AssetConfiguration/downloadURLLifetime``.
struct AssetLinks: Sendable {
    /// `http://host:port`, without a trailing slash.
    let base: String
    let tokens: TokenCodec
    let expiresAt: Int64

    /// The record with a `downloadURL` on every asset (list member).
    func decorate(_ record: Record) -> Record {
        guard let fields = record.fields, fields.values.contains(where: AssetAdmission.holdsAssets) else { return record }
        var decorated = record
        for (name, value) in fields {
            switch value {
            case .asset(let asset): decorated.fields?[name] = .asset(link(asset))
            case .assetList(let assets): decorated.fields?[name] = .assetList(assets.map(link))
            default: continue
            }
        }
        return decorated
    }

    /// Every record result decorated.
    func decorate(_ results: [RecordResult]) -> [RecordResult] {
        results.map { result in
            guard case .record(let record) = result else { return result }
            return .record(decorate(record))
        }
    }

    private func link(_ asset: Asset) -> Asset {
        guard let checksum = asset.fileChecksum, let key = AssetChecksum.key(forFileChecksum: checksum) else { return asset }
        let ticket = tokens.seal(AssetDownloadTicket(k: key, x: expiresAt), kind: .assetDownload)
        return Asset(fileChecksum: checksum, size: asset.size, downloadURL: "\(base)/assets/download/\(ticket)/${f}")
    }
}

/// Responses that carry records get download URLs on their assets.
///
/// These overloads are more specific than `encode(_: some Encodable, …)`, so every handler
/// that encodes one of these responses through its context decorates it without knowing;
/// the encoding itself still goes through the generic `encode`.
extension DatabaseRequest {
    func encode(_ value: RecordsModify.Response, numbersAsStrings: Bool?) throws -> HTTPResponse {
        var value = value
        if let assetLinks { value.records = assetLinks.decorate(value.records) }
        return try encodeAny(value, numbersAsStrings: numbersAsStrings)
    }

    func encode(_ value: RecordsLookup.Response, numbersAsStrings: Bool?) throws -> HTTPResponse {
        var value = value
        if let assetLinks { value.records = assetLinks.decorate(value.records) }
        return try encodeAny(value, numbersAsStrings: numbersAsStrings)
    }

    func encode(_ value: RecordsQuery.Response, numbersAsStrings: Bool?) throws -> HTTPResponse {
        var value = value
        if let assetLinks { value.records = assetLinks.decorate(value.records) }
        return try encodeAny(value, numbersAsStrings: numbersAsStrings)
    }

    func encode(_ value: RecordsChanges.Response, numbersAsStrings: Bool?) throws -> HTTPResponse {
        var value = value
        if let assetLinks { value.records = assetLinks.decorate(value.records) }
        return try encodeAny(value, numbersAsStrings: numbersAsStrings)
    }

    func encode(_ value: ZoneChanges.Response, numbersAsStrings: Bool?) throws -> HTTPResponse {
        var value = value
        if let assetLinks {
            value.zones = value.zones.map { zone in
                guard case .changes(var changes) = zone else { return zone }
                changes.records = assetLinks.decorate(changes.records)
                return .changes(changes)
            }
        }
        return try encodeAny(value, numbersAsStrings: numbersAsStrings)
    }

    /// The generic `encode`, reached from inside a generic context so the overloads above cannot recurse.
    private func encodeAny<T: Encodable>(_ value: T, numbersAsStrings: Bool?) throws -> HTTPResponse {
        try encode(value, numbersAsStrings: numbersAsStrings)
    }
}

extension AssetLinks {
    /// Makes the ``AssetLinks`` of each response: URLs on the base the request reached, expiring
    /// ``AssetConfiguration/downloadURLLifetime`` from now.
    struct Signer: Sendable {
        let tokens: TokenCodec
        let baseURL: PublicBaseURL
        let configuration: AssetConfiguration
        let now: @Sendable () -> Int64

        /// The links of the response to `request`.
        func links(for request: HTTPRequest) -> AssetLinks {
            AssetLinks(base: baseURL.base(for: request), tokens: tokens, expiresAt: now() + configuration.downloadURLLifetime)
        }
    }
}
