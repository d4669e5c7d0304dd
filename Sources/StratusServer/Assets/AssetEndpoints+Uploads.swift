import Foundation
import StratusCrypto
import StratusHTTP
import StratusWire

/// `assets/upload` and the upload route it hands out (Apple's CloudKit Web Services Reference: “Upload the bytes to the CDN”), with the checks that keep
/// uploads from exhausting the server: each URL works once, for at most the bytes its quota had
/// room for, and its ticket is checked on the request head before any byte is read; the body goes
/// to disk as it arrives (Documentation/0007-push-and-assets.md, "Uploads").
extension AssetEndpoints {
    // MARK: assets/upload

    /// `assets/upload`: one upload URL on this server per requested field, each good for one
    /// upload within ``AssetConfiguration/uploadURLLifetime``.
    ///
    /// - Throws: `QUOTA_EXCEEDED` when the database has no room left for assets.
    func requestAssetUploads(_ context: DatabaseRequest) async throws -> HTTPResponse {
        _ = try requireAssetFiles()
        let request = try context.decode(AssetsUpload.Request.self)
        let limit = configuration.limits.maximumOperationsPerRequest
        guard request.tokens.count <= limit else {
            throw ServiceError.badRequest("a request may ask for at most \(limit) upload URLs; this one asks for \(request.tokens.count)")
        }
        _ = try context.zoneName(of: request.zoneID)
        let budget = try await uploadBudget(for: context.database)
        let expires = configuration.now() + configuration.assets.uploadURLLifetime
        let base = baseURL.base(for: context.request)
        let urls = try request.tokens.map { token in
            let ticket = AssetUploadTicket(
                c: context.container, e: context.environment.rawValue, u: context.caller, x: expires,
                d: context.database.scope.rawValue, b: budget, n: try SecureRandom.base64URLToken(byteCount: 16)
            )
            return AssetsUpload.UploadURL(
                recordName: token.recordName ?? configuration.makeRecordName(), fieldName: token.fieldName,
                url: "\(base)/assets/upload/\(tokens.seal(ticket, kind: .assetUpload))"
            )
        }
        return try context.encode(AssetsUpload.Response(tokens: urls), numbersAsStrings: nil)
    }

    /// The most bytes one upload into `database` may have: the size limit, or the room its quota
    /// has left when that is less (the quota is enforced for good when a record takes the asset).
    ///
    /// - Throws: `QUOTA_EXCEEDED` when the quota has no room left.
    func uploadBudget(for database: DatabaseKey) async throws -> Int64 {
        let maximum = Int64(configuration.assets.maximumSize)
        let limits = configuration.quotas.limits(for: database.container)
        let isPublic = database.scope == .public
        let quota = isPublic ? limits.publicAssetBytes : limits.privateBytesPerUser
        guard quota < (isPublic ? QuotaLimits.unlimited.publicAssetBytes : QuotaLimits.unlimited.privateBytesPerUser) else {
            return maximum
        }
        // NB: PostgreSQL's usage read locks the database's row, so it runs in a write transaction.
        let usage = try await store.write { tx in try tx.usage(of: database) }
        let room = quota - (isPublic ? usage.assetBytes : usage.recordBytes + usage.assetBytes)
        guard room > 0 else {
            let what = isPublic ? "the public database's assets" : "the private database of user '\(database.owner)'"
            throw ServiceError(.quotaExceeded, "\(what) already use the quota of \(quota) bytes; no upload URL was issued")
        }
        return min(maximum, room)
    }

    // MARK: POST /assets/upload/{ticket}

    /// The upload route's head check: the ticket is opened, checked and claimed, and a file is made
    /// for the body, before any byte of it is read.
    ///
    /// - Throws: `ACCESS_DENIED` for a forged, expired or spent URL (charged to the address's
    ///   bucket, like a bad credential); 413 for a declared body over the URL's budget.
    func openUpload(_ request: HTTPRequest) throws -> AssetUpload {
        let files = try requireAssetFiles()
        let now = configuration.now()
        guard let ticket = tokens.open(try request.parameter("ticket"), kind: .assetUpload, as: AssetUploadTicket.self) else {
            throw throttle.chargeFailedAuthentication(request, ServiceError(.accessDenied, "this upload URL is not valid for this server"))
        }
        guard ticket.x > now else {
            throw throttle.chargeFailedAuthentication(request, ServiceError(.accessDenied, "this upload URL has expired; ask for a new one with assets/upload"))
        }
        let limit = Int(min(ticket.b, Int64(configuration.assets.maximumSize)))
        let tooLarge =
            limit < configuration.assets.maximumSize
            ? HTTPError(
                status: .contentTooLarge, serverErrorCode: ServerErrorCode.quotaExceeded.rawValue,
                reason: "this upload is larger than the \(limit) bytes left in the \(ticket.d) database's quota when its URL was issued"
            )
            : HTTPError.bodyTooLarge(limit: limit)
        if let declared = request.headers["Content-Length"].flatMap({ Int($0) }), declared > limit { throw tooLarge }
        guard uploadTickets.claim(ticket.n, expires: ticket.x, now: now) else {
            throw throttle.chargeFailedAuthentication(
                request, ServiceError(.accessDenied, "this upload URL is in use or was used already (each works once); ask for a new one with assets/upload")
            )
        }
        let ledger = uploadTickets
        do {
            return try AssetUpload(directory: files.uploadDirectory, ticket: ticket, limit: limit, limitError: tooLarge) {
                ledger.release(ticket.n)
            }
        } catch {
            ledger.release(ticket.n)
            throw error
        }
    }

    /// `POST /assets/upload/{ticket}`: stores the body (once per content) and answers `{"singleFile": {…}}`.
    func uploadAsset(_ request: HTTPRequest) async throws -> HTTPResponse {
        let files = try requireAssetFiles()
        let upload: AssetUpload
        if let streamed = request.bodySink as? AssetUpload {
            upload = streamed
        } else {
            // A body the transport did not stream: none at all, or a request answered in process.
            upload = try openUpload(request)
            do {
                try upload.finish(writing: request.body)
            } catch {
                upload.close()
                throw error
            }
        }
        guard let file = upload.take() else {
            upload.close()
            throw HTTPError.internalError
        }
        let ticket = upload.ticket
        let now = configuration.now()
        do {
            let staged = try files.stage(file: file.url)
            do {
                try await store.write { tx in
                    try tx.putAsset(key: file.key, size: file.size, now: now)
                    try files.install(staged, key: file.key)
                }
            } catch {
                files.discard(staged)
                throw error
            }
        } catch {
            unlink(file.url.path)
            uploadTickets.release(ticket.n)
            throw error
        }
        uploadTickets.spend(ticket.n)
        let receipt = tokens.seal(AssetReceipt(k: file.key, s: file.size, c: ticket.c, e: ticket.e, u: ticket.u), kind: .assetReceipt)
        let asset = Asset(
            fileChecksum: AssetChecksum.fileChecksum(forKey: file.key), size: file.size,
            referenceChecksum: AssetChecksum.opaque("reference", key: file.key),
            wrappingKey: AssetChecksum.opaque("wrapping", key: file.key), receipt: receipt
        )
        return .json(bytes: try WireCoding.encode(AssetUploadReceipt(singleFile: asset)))
    }
}
