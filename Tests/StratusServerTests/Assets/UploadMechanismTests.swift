import Foundation
import StratusHTTP
import StratusTesting
import Synchronization
import Testing

@testable import StratusServer

/// Unit tests of the pieces that keep uploads single-use and out of memory.
@Suite struct UploadMechanismTests {
    static let ticket = AssetUploadTicket(c: "c", e: "development", u: "_u", x: 10_000, d: "private", b: 1000, n: "n1")

    @Test func aLedgerClaimHoldsUntilReleasedAndForeverOnceSpent() {
        let ledger = UploadTicketLedger()
        #expect(ledger.claim("a", expires: 100, now: 0))
        #expect(!ledger.claim("a", expires: 100, now: 0))
        ledger.release("a")
        #expect(ledger.claim("a", expires: 100, now: 0))
        ledger.spend("a")
        ledger.release("a")
        #expect(!ledger.claim("a", expires: 100, now: 0))
    }

    @Test func aFullLedgerDropsExpiredURLsAndRefusesWhenStillFull() {
        let ledger = UploadTicketLedger(maximumEntries: 2)
        #expect(ledger.claim("a", expires: 10, now: 0))
        #expect(ledger.claim("b", expires: 100, now: 0))
        #expect(!ledger.claim("c", expires: 100, now: 5))
        #expect(ledger.claim("c", expires: 100, now: 20))
    }

    /// How often an upload was abandoned.
    final class Abandonments: Sendable {
        private let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
        func note() { value.withLock { $0 += 1 } }
    }

    /// An upload into `directory` that counts its abandonments.
    static func upload(in directory: TemporaryDirectory, limit: Int, abandoned: Abandonments) throws -> AssetUpload {
        try AssetUpload(directory: directory.url, ticket: ticket, limit: limit, limitError: .bodyTooLarge(limit: limit)) {
            abandoned.note()
        }
    }

    @Test func anUploadIsHashedAsItIsWrittenAndTakenWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let abandoned = Abandonments()
        let upload = try Self.upload(in: directory, limit: 1000, abandoned: abandoned)
        let body = Data((0..<900).map { UInt8($0 % 251) })
        try upload.finish(writing: body)
        let file = try #require(upload.take())
        upload.close()
        #expect(file.key == AssetChecksum.key(of: body))
        #expect(file.size == 900)
        #expect(try Data(contentsOf: file.url) == body)
        let mode = try FileManager.default.attributesOfItem(atPath: file.url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(abandoned.count == 0)
    }

    @Test func anUploadOverItsLimitIsRefusedAndItsFileRemovedOnClose() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let abandoned = Abandonments()
        let upload = try Self.upload(in: directory, limit: 10, abandoned: abandoned)
        #expect(throws: HTTPError.bodyTooLarge(limit: 10)) { try upload.finish(writing: Data(count: 11)) }
        upload.close()
        upload.close()
        #expect(upload.take() == nil)
        #expect(!FileManager.default.fileExists(atPath: upload.url.path))
        #expect(abandoned.count == 1)
    }

    @Test func aCredentialCacheAnswersWithoutLoadingOnlyWhileAnEntryIsCurrent() async throws {
        let cache = CredentialCache<String>(lifetime: .seconds(60))
        #expect(cache.cachedValue("k", generation: nil, now: 0) == nil)
        _ = await cache.value("k", generation: nil, now: 0) { "v" }
        #expect(cache.cachedValue("k", generation: nil, now: 59_999) == "v")
        #expect(cache.cachedValue("k", generation: nil, now: 60_000) == nil)
    }

    @Test func metricsAccessAllowsLoopbackOrTheTokenOnly() throws {
        var request = HTTPRequest(method: .get, path: "/metrics")
        request.remoteAddress = "127.0.0.1"
        try MetricsAccess().check(request)
        request.remoteAddress = "10.0.0.7"
        #expect(throws: HTTPError.self) { try MetricsAccess().check(request) }
        let access = MetricsAccess(bearerToken: "s3cret")
        request.headers.add("Authorization", "Bearer s3cret")
        try access.check(request)
        request.remoteAddress = "127.0.0.1"
        request.headers = ["Authorization": "Bearer s3cre"]
        #expect(throws: HTTPError.self) { try access.check(request) }
    }
}
