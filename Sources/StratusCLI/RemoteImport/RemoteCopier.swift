import Foundation
import StratusClient
import StratusServer
import StratusWire

/// Runs one `stratus import --from`: pages from the source, each applied to the store and then
/// noted in the progress file.
struct RemoteCopier {
    let source: RemoteSource
    let store: any RecordStore & AccountStore
    let target: CopyTarget
    /// Where downloaded asset bytes wait until the page is applied (the asset store's upload folder).
    let downloads: URL
    let progressURL: URL
    var progress: RemoteImportProgress
    let pageSize: Int
    private(set) var saved = 0
    private(set) var deleted = 0
    private(set) var pages = 0

    init(
        source: RemoteSource, store: any RecordStore & AccountStore, target: CopyTarget, downloads: URL, progressURL: URL,
        progress: RemoteImportProgress, pageSize: Int
    ) {
        self.source = source
        self.store = store
        self.target = target
        self.downloads = downloads
        self.progressURL = progressURL
        self.progress = progress
        self.pageSize = pageSize
    }

    mutating func run(owner: String, recordTypes: [String]) async throws {
        try await target.prepare(container: source.identifier)
        let resumed = !progress.zoneTokens.isEmpty || !progress.typeCursors.isEmpty || !progress.finishedTypes.isEmpty
        if resumed { print("resuming the copy noted in \(progressURL.path)") }
        switch source.scope {
        case .private:
            try await copyPrivate(owner: owner, recordTypes: recordTypes)
        default:
            let types = try await publicRecordTypes(recordTypes)
            let database = DatabaseKey(container: source.identifier, environment: source.environment, scope: .public, owner: DatabaseKey.publicOwner)
            try await copyByQuery(source.container.publicCloudDatabase, zoneID: .defaultZone, types: types, into: database, authors: [:])
        }
        print(
            "copied \(source.scope.rawValue) database of \(source.identifier) (\(source.environment.rawValue)) from \(source.url.absoluteString): \(saved) record(s) saved, \(deleted) deleted, in \(pages) page(s)"
        )
    }

    /// The record types a public copy queries: the ones named, else this container's schema's.
    private func publicRecordTypes(_ named: [String]) async throws -> [String] {
        if !named.isEmpty { return named }
        let container = source.identifier
        let environment = source.environment
        let schema = try await store.read { try $0.schema(container: container, environment: environment) }
        guard !schema.recordTypes.isEmpty else {
            throw CLIError(
                "the public database has no change feed: name the record types to copy with --record-types, or import the schema first (stratus schema import)")
        }
        return schema.recordTypes.keys.sorted()
    }

    /// A user's private database: every custom zone through its change feed, into `owner`'s
    /// database here; then the default zone, which keeps no change feed, by query.
    private mutating func copyPrivate(owner: String, recordTypes: [String]) async throws {
        let remote = try await source.container.userIdentity().userRecordName ?? ""
        let local = try await localOwner(owner.isEmpty ? remote : owner)
        let database = DatabaseKey(container: source.identifier, environment: source.environment, scope: .private, owner: local)
        let authors = remote.isEmpty ? [:] : [remote: local]
        let zones = try await source.container.privateCloudDatabase.allRecordZones().map(\.zoneID).sorted { $0.zoneName < $1.zoneName }
        for zone in zones where !zone.isDefaultZone {
            try await copyChanges(of: zone, into: database, authors: authors)
        }
        // The types to query: those named, and every type this container's schema here knows
        // (the copy of the other zones added theirs).
        let container = source.identifier
        let environment = source.environment
        let known = try await store.read { try $0.schema(container: container, environment: environment) }.recordTypes.keys
        let types = Set(recordTypes).union(known).sorted()
        print("the default zone keeps no change feed: copying its records of type \(types.joined(separator: ", ")) by query")
        try await copyByQuery(source.container.privateCloudDatabase, zoneID: .defaultZone, types: types, into: database, authors: authors)
    }

    /// The user record name of the local account named by e-mail address or record name.
    private func localOwner(_ name: String) async throws -> String {
        let account = try await store.readAccounts { tx in try tx.user(recordName: name) ?? tx.user(emailAddress: name.lowercased()) }
        guard let account else {
            throw CLIError("no account here is '\(name)'; create one (stratus user create) and name it with --owner EMAIL to receive the copy")
        }
        return account.userRecordName
    }

    /// One zone's change feed from the noted token on, a page at a time.
    private mutating func copyChanges(of zone: ZoneID, into database: DatabaseKey, authors: [String: String]) async throws {
        let remote = source.container.privateCloudDatabase
        var token = progress.zoneTokens[zone.zoneName]
        while true {
            let page: Database.RecordZoneChanges
            do {
                page = try await remote.recordZoneChanges(inZoneWith: zone, since: token, resultsLimit: pageSize)
            } catch let error as StratusError where error.code == .changeTokenExpired && token != nil {
                print("the source no longer accepts the noted token of zone '\(zone.zoneName)'; copying the zone again in full")
                token = nil
                continue
            }
            let records = try await RemoteRecords.copied(try page.modifications(), downloads: downloads, authors: authors)
            defer { RemoteRecords.removeDownloads(records) }
            try await target.apply(saved: records, deleted: page.deletions.map(\.recordID.recordName), zoneName: zone.zoneName, in: database)
            token = page.changeToken
            progress.zoneTokens[zone.zoneName] = page.changeToken
            try progress.save(to: progressURL)
            (saved, deleted, pages) = (saved + records.count, deleted + page.deletions.count, pages + 1)
            if !page.moreComing { return }
        }
    }

    /// Every record of each type in one zone, by query, from the noted cursor on.
    private mutating func copyByQuery(
        _ remote: Database, zoneID: ZoneID, types: [String], into database: DatabaseKey, authors: [String: String]
    ) async throws {
        for type in types where !progress.finishedTypes.contains("\(zoneID.zoneName)/\(type)") {
            let key = "\(zoneID.zoneName)/\(type)"
            var cursor = progress.typeCursors[key]
            while true {
                let page: Database.QueryPage
                if let cursor {
                    page = try await remote.records(continuingMatchFrom: cursor, resultsLimit: pageSize)
                } else {
                    do {
                        page = try await remote.records(matching: Query(recordType: type, filters: []), inZoneWith: zoneID, resultsLimit: pageSize)
                    } catch let error as StratusError where error.code == .invalidArguments {
                        print("skipped record type \(type): the source refuses to query it (\(error.message))")
                        break
                    }
                }
                let records = try await RemoteRecords.copied(try page.records(), downloads: downloads, authors: authors)
                defer { RemoteRecords.removeDownloads(records) }
                try await target.apply(saved: records, deleted: [], zoneName: zoneID.zoneName, in: database)
                cursor = page.queryCursor
                progress.typeCursors[key] = cursor
                if cursor == nil { progress.finishedTypes.append(key) }
                try progress.save(to: progressURL)
                (saved, pages) = (saved + records.count, pages + 1)
                if cursor == nil { break }
            }
        }
    }
}

/// Source records as ``CopiedRecord``s, their assets downloaded.
enum RemoteRecords {
    static func copied(_ records: [StratusClient.Record], downloads: URL, authors: [String: String]) async throws -> [CopiedRecord] {
        var copied: [CopiedRecord] = []
        for record in records.sorted(by: { $0.recordID.recordName < $1.recordID.recordName }) {
            var fields = record.fields
            for (name, value) in record.fields {
                switch value {
                case .asset(let asset): fields[name] = .asset(try await download(asset, downloads))
                case .assetList(let list):
                    var local: [Asset] = []
                    for asset in list { local.append(try await download(asset, downloads)) }
                    fields[name] = .assetList(local)
                default: continue
                }
            }
            let creator = record.creatorUserRecordName.map { authors[$0] ?? $0 } ?? ""
            let modifier = record.lastModifiedUserRecordName.map { authors[$0] ?? $0 } ?? creator
            let device = record.modifiedByDevice ?? ""
            copied.append(
                CopiedRecord(
                    recordName: record.recordID.recordName, recordType: record.recordType, fields: fields, parent: record.parent,
                    created: StoredRecord.Stamp(timestamp: milliseconds(record.creationDate), userRecordName: creator, deviceID: device),
                    modified: StoredRecord.Stamp(timestamp: milliseconds(record.modificationDate), userRecordName: modifier, deviceID: device)))
        }
        return copied
    }

    private static func download(_ asset: Asset, _ folder: URL) async throws -> Asset {
        Asset(fileURL: try await asset.fileURL(in: folder))
    }

    private static func milliseconds(_ date: Date?) -> Int64 {
        Int64(((date ?? Date()).timeIntervalSince1970 * 1000).rounded())
    }

    /// Deletes the downloaded files of a page (the asset store copied what it keeps).
    static func removeDownloads(_ records: [CopiedRecord]) {
        for record in records {
            for value in record.fields.values {
                switch value {
                case .asset(let asset): asset.localFileURL.map { try? FileManager.default.removeItem(at: $0) }
                case .assetList(let list): list.forEach { asset in asset.localFileURL.map { try? FileManager.default.removeItem(at: $0) } }
                default: continue
                }
            }
        }
    }
}
