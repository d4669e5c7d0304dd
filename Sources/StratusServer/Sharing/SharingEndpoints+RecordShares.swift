import StratusHTTP
import StratusWire

extension SharingEndpoints {
    /// A shared-database request in a zone reached only through record shares: the records
    /// reachable are the shares' roots and the records whose `parent` chain leads to one of them.
    ///
    /// `records/lookup` answers `NOT_FOUND` for other records, `records/query` leaves them out, and
    /// `records/modify` (with `READ_WRITE` on the hierarchy) may change records of the hierarchy or
    /// create records whose parent is in it, and `records/changes` shows the hierarchy's changes only.
    func inRecordShares(_ delegated: DatabaseRequest, shared: SharedZone) async throws -> HTTPResponse {
        switch delegated.operation {
        case .recordsLookup:
            let request = try delegated.decode(RecordsLookup.Request.self)
            let response = try await records.lookupRecords(delegated)
            var decoded = try Self.decodeResponse(RecordsLookup.Response.self, response)
            let names = Set(decoded.records.compactMap { if case .record(let record) = $0 { record.recordName } else { nil } })
            let covered = try await hierarchy(of: names, in: shared).coverage
            decoded.records = decoded.records.map { result in
                guard case .record(let record) = result, let name = record.recordName, covered[name] == nil else { return result }
                let error = ServiceError(.notFound, "record '\(name)' does not exist in zone '\(shared.zone.zoneName)' or has not been shared with you")
                return .error(error.recordError(recordName: name, uuid: delegated.requestID))
            }
            return try delegated.encode(decoded, numbersAsStrings: request.numbersAsStrings)
        case .recordsQuery:
            let request = try delegated.decode(RecordsQuery.Request.self, schema: try await schemas.schema(for: delegated, in: store))
            let response = try await records.queryRecords(delegated)
            var decoded = try Self.decodeResponse(RecordsQuery.Response.self, response)
            let names = Set(decoded.records.compactMap { if case .record(let record) = $0 { record.recordName } else { nil } })
            let covered = try await hierarchy(of: names, in: shared).coverage
            decoded.records = decoded.records.filter { result in
                guard case .record(let record) = result, let name = record.recordName else { return false }
                return covered[name] != nil
            }
            return try delegated.encode(decoded, numbersAsStrings: request.numbersAsStrings)
        case .recordsModify:
            try await admitRecordSharedModify(delegated, shared: shared)
            return try await records.modifyRecords(delegated)
        case .recordsChanges:
            return try await changes.recordChanges(delegated, view: ShareHierarchy.feedView(roots: Set(shared.roots.keys)))
        default:
            throw ServiceError.badRequest("this operation is not supported in a zone shared with you through record shares")
        }
    }

    /// Refuses (403 `ACCESS_DENIED`, the whole request) a `records/modify` that touches a record
    /// outside the shared hierarchies, writes where the caller is read-only, or creates a record
    /// whose `parent` is not in a hierarchy the caller may write.
    private func admitRecordSharedModify(_ delegated: DatabaseRequest, shared: SharedZone) async throws {
        let request = try delegated.decode(RecordsModify.Request.self, schema: try await schemas.schema(for: delegated, in: store))
        var names: Set<String> = []
        for operation in request.operations {
            if let name = operation.record.recordName { names.insert(name) }
            if let parent = operation.record.parent { names.insert(parent.recordName) }
        }
        var (covered, existing) = try await hierarchy(of: names, in: shared)
        let zone = "zone '\(shared.zone.zoneName)' of '\(shared.zone.database.owner)'"
        for operation in request.operations {
            let record = operation.record
            let name = record.recordName ?? "(new record)"
            if let existingName = record.recordName, existing.contains(existingName) || covered[existingName] != nil {
                guard let permission = covered[existingName] else {
                    throw ServiceError(.accessDenied, "record '\(existingName)' in \(zone) has not been shared with you")
                }
                guard permission == .readWrite else {
                    throw ServiceError(.accessDenied, "record '\(existingName)' in \(zone) is shared with you read-only; ask its owner for READ_WRITE")
                }
            } else {
                switch operation.intent(in: shared.zone.zoneID) {
                case .delete, .forceDelete:
                    throw ServiceError(.accessDenied, "record '\(name)' in \(zone) has not been shared with you")
                default:
                    guard record.parent != nil else {
                        throw ServiceError(.accessDenied, "record '\(name)': a new record in \(zone) needs a parent inside a hierarchy shared with you")
                    }
                }
            }
            if let parent = record.parent {
                guard covered[parent.recordName] == .readWrite else {
                    throw ServiceError(
                        .accessDenied, "record '\(name)': its parent '\(parent.recordName)' is not in a hierarchy of \(zone) shared with you READ_WRITE"
                    )
                }
                if let created = record.recordName { covered[created] = .readWrite }
            }
        }
    }

    /// Which of `names` are live records of the zone reachable from a root of its record shares
    /// (with the best permission of those roots), and which are live records at all.
    private func hierarchy(
        of names: Set<String>, in shared: SharedZone
    ) async throws -> (coverage: [String: SharePermission], existing: Set<String>) {
        let zoneRowID = shared.zone.rowID
        let roots = shared.roots
        return try await store.read { tx in
            var coverage: [String: SharePermission] = [:]
            var existing: Set<String> = []
            for name in names {
                guard let record = try tx.record(named: name, inZone: zoneRowID), !record.isDeleted else { continue }
                existing.insert(name)
                let reached = try ShareHierarchy.roots(reachedFrom: record, among: Set(roots.keys), tx)
                if !reached.isEmpty { coverage[name] = reached.contains { roots[$0] == .readWrite } ? .readWrite : .readOnly }
            }
            return (coverage, existing)
        }
    }

    private static func decodeResponse<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws -> T {
        do {
            return try WireCoding.decode(type, from: response.body)
        } catch {
            throw ServiceError(.internalError, "could not filter a shared-database response: \(error.reason)")
        }
    }
}
