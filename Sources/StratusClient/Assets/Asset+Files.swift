public import Foundation
public import StratusWire

extension Asset {
    /// An asset to upload from a local file when its record is saved (`CKAsset(fileURL:)`).
    ///
    /// ``Database/save(_:)-(Record)`` and ``Database/modifyRecords(saving:deleting:savePolicy:atomically:)``
    /// read the file, upload it (`assets/upload`, then a `POST` of the bytes) and put the upload
    /// receipt in the field; the saved record comes back with the server's asset (checksum, size,
    /// download URL).
    ///
    /// ```swift
    /// var photo = Record(recordType: "Photo")
    /// photo["image"] = Asset(fileURL: URL(fileURLWithPath: "/tmp/cat.jpg"))
    /// let saved = try await database.save(photo)
    /// let bytes = try await saved.value(forKey: "image", as: Asset.self)?.data()
    /// ```
    ///
    /// - Parameter fileURL: The local file; it must still exist when the record is saved.
    public init(fileURL: URL) {
        self.init()
        localFileURL = fileURL
    }

    /// The download URL with the `${f}` placeholder replaced by `fileName`; `nil` when the server sent
    /// none, or one that is not `http` or `https`.
    ///
    /// The URL comes from the server: a `file:` URL (or any other scheme) is never fetched, so a
    /// record cannot make the client read a local file.
    ///
    /// - Parameter fileName: The file name the server should see (percent-encoded here).
    /// - Returns: The URL to `GET` (no CloudKit authentication needed; it expires).
    public func resolvedDownloadURL(fileName: String = "file") -> URL? {
        guard let downloadURL, localFileURL == nil else { return nil }
        let name = fileName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? "file"
        guard let url = URL(string: downloadURL.replacingOccurrences(of: "${f}", with: name)),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return url
    }

    /// The asset's bytes: the local file's, or downloaded from ``downloadURL`` on demand.
    ///
    /// - Parameters:
    ///   - timeout: The deadline of the download.
    ///   - transport: The transport; a shared ``DefaultTransport`` by default.
    /// - Returns: The bytes.
    /// - Throws: ``StratusError``: ``StratusError/Code/invalidArguments`` without a download URL or
    ///   local file, ``StratusError/Code/networkFailure`` and server errors from the download.
    public func data(timeout: Duration = .seconds(300), transport: (any HTTPTransport)? = nil) async throws -> Data {
        if let localFileURL {
            do {
                return try Data(contentsOf: localFileURL)
            } catch {
                throw StratusError(.invalidArguments, "cannot read asset file '\(localFileURL.path)': \(error)", underlying: error)
            }
        }
        guard let url = resolvedDownloadURL() else {
            if downloadURL != nil {
                throw StratusError(.serverResponseLost, "the server sent an asset download URL that is not http or https; it is not fetched")
            }
            throw StratusError(.invalidArguments, "this asset has no download URL; fetch its record to get one")
        }
        let response: TransportResponse
        do {
            response = try await (transport ?? AssetTransfers.transport).send(TransportRequest(method: "GET", url: url, timeout: timeout))
        } catch {
            guard let mapped = StratusError.transport(error), !Task.isCancelled else { throw CancellationError() }
            throw mapped
        }
        guard response.status == 200 else { throw ServiceClient.error(from: response) }
        if let size, Int64(response.body.count) != size {
            throw StratusError(.serverResponseLost, "the asset download gave \(response.body.count) bytes; the record says \(size)")
        }
        return response.body
    }

    /// A local file with the asset's bytes: the asset's own file, or a new download on demand.
    ///
    /// - Parameters:
    ///   - directory: Where to write a downloaded file; the temporary directory by default.
    ///   - timeout: The deadline of the download.
    ///   - transport: The transport; a shared ``DefaultTransport`` by default.
    /// - Returns: The file's URL. Downloaded files belong to the caller, who deletes them.
    /// - Throws: What ``data(timeout:transport:)`` throws, or ``StratusError/Code/invalidArguments``
    ///   when the file cannot be written.
    public func fileURL(
        in directory: URL? = nil, timeout: Duration = .seconds(300), transport: (any HTTPTransport)? = nil
    )
        async throws -> URL
    {
        if let localFileURL { return localFileURL }
        let bytes = try await data(timeout: timeout, transport: transport)
        let folder = directory ?? FileManager.default.temporaryDirectory
        let file = folder.appendingPathComponent("stratus-asset-" + UUID().uuidString)
        do {
            try bytes.write(to: file, options: .atomic)
        } catch {
            throw StratusError(.invalidArguments, "cannot write the asset to '\(file.path)': \(error)", underlying: error)
        }
        return file
    }
}

/// The transport asset downloads share when the caller gives none.
enum AssetTransfers {
    static let transport = DefaultTransport.make()
}
