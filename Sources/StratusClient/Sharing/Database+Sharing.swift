public import StratusWire

extension Database {
    /// Saves a share: creates it (its root record must exist, in a custom zone of the private
    /// database) or writes its new public permission and participants.
    ///
    /// - Parameter share: The share.
    /// - Returns: The share as saved, with its ``Share/shortGUID``, owner and change tag.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` when the root record does not
    ///   exist, ``StratusError/Code/serverRecordChanged`` when someone else changed the share first.
    ///
    /// CloudKit reference: records/modify (`cloudkit.share` records).
    @discardableResult
    public func save(_ share: Share) async throws -> Share {
        let request = RecordsModify.Request(operations: [share.saveOperation], zoneID: Self.wireZone(share.recordID.zoneID))
        let response = try await client.send(RecordsModify.self, request, database: scope, idempotent: false)
        guard let result = response.records.first, response.records.count == 1 else {
            throw StratusError(.serverResponseLost, "records/modify answered \(response.records.count) results for one share")
        }
        switch result {
        case .record(let wire): return Share(wire: wire, recordID: share.recordID, rootRecordID: share.rootRecordID)
        case .error(let error): throw StratusError(error, recordID: share.recordID)
        }
    }

    /// Shares a whole custom zone: creates its zone-wide share, or updates it if it exists.
    ///
    /// - Parameters:
    ///   - zoneID: The zone.
    ///   - participants: The people to invite (replacing the previous list when the share exists).
    ///   - publicPermission: What anyone with the short GUID may do.
    /// - Returns: The saved share.
    /// - Throws: ``StratusError``.
    @discardableResult
    public func shareZone(
        _ zoneID: ZoneID, participants: [Share.Participant] = [], publicPermission: SharePermission = .none
    ) async throws -> Share {
        var share: Share
        do {
            share = try await zoneShare(for: zoneID)
        } catch let error as StratusError where error.code == .unknownItem {
            share = Share(recordZoneID: zoneID)
        }
        share.publicPermission = publicPermission
        share.participants = []
        for participant in participants { share.addParticipant(participant) }
        return try await save(share)
    }

    /// Fetches a share record by ID.
    ///
    /// - Parameter recordID: The share record's ID.
    /// - Returns: The share, with its participants.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` when it does not exist.
    ///
    /// CloudKit reference: records/lookup.
    public func share(withID recordID: RecordID) async throws -> Share {
        try await share(withID: recordID, rootRecordID: nil)
    }

    /// Fetches the share of a record, named by the record's ``Record/share`` reference.
    ///
    /// - Parameter record: The shared record, as fetched.
    /// - Returns: The share.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` when the record carries no share.
    public func share(for record: Record) async throws -> Share {
        guard let reference = record.share else {
            throw StratusError(.unknownItem, "record '\(record.recordID.recordName)' carries no share reference")
        }
        let id = RecordID(recordName: reference.recordName, zoneID: record.recordID.zoneID)
        return try await share(withID: id, rootRecordID: record.recordID)
    }

    /// Fetches the zone-wide share of a zone.
    ///
    /// - Parameter zoneID: The zone.
    /// - Returns: The share.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` when the zone is not shared.
    public func zoneShare(for zoneID: ZoneID) async throws -> Share {
        try await share(withID: RecordID(recordName: Share.zoneWideShareRecordName, zoneID: zoneID), rootRecordID: nil)
    }

    /// Deletes a share: every participant loses access at once. The shared records stay.
    ///
    /// - Parameter share: The share.
    /// - Throws: ``StratusError``.
    ///
    /// CloudKit reference: records/modify (`forceDelete`).
    public func deleteShare(_ share: Share) async throws {
        try await deleteRecord(withID: share.recordID)
    }

    private func share(withID recordID: RecordID, rootRecordID: RecordID?) async throws -> Share {
        let request = RecordsLookup.Request(records: [RecordsLookup.Item(recordName: recordID.recordName)], zoneID: Self.wireZone(recordID.zoneID))
        let response = try await client.send(RecordsLookup.self, request, database: scope, idempotent: true)
        guard let result = response.records.first, response.records.count == 1 else {
            throw StratusError(.serverResponseLost, "records/lookup answered \(response.records.count) results for one share")
        }
        switch result {
        case .record(let wire):
            guard wire.isShare else {
                throw StratusError(.invalidArguments, "record '\(recordID.recordName)' is a '\(wire.recordType ?? "?")', not a share")
            }
            return Share(wire: wire, recordID: recordID, rootRecordID: rootRecordID)
        case .error(let error): throw StratusError(error, recordID: recordID)
        }
    }
}
