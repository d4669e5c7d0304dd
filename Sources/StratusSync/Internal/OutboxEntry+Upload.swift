import Foundation
import StratusClient
import StratusWire

extension OutboxEntry {
    /// The head of the outbox that can go in one `records/modify`: consecutive saves, or
    /// consecutive deletions, of distinct records.
    static func batch(atHeadOf head: [OutboxEntry]) -> [OutboxEntry] {
        var names: Set<String> = []
        var batch: [OutboxEntry] = []
        for entry in head {
            guard entry.kind == head[0].kind, names.insert(entry.recordName).inserted else { break }
            batch.append(entry)
        }
        return batch
    }

    /// The record this entry uploads: its last-synced version with the entry's changes, or a new
    /// record (with the fields of a version the server lost, if any) to create.
    func outgoingRecord(base: BaseRecord?, zoneID: ZoneID) throws -> StratusClient.Record {
        var record: StratusClient.Record
        if let base {
            record = try StratusClient.Record(wire: base.record, zoneID: zoneID)
        } else {
            record = StratusClient.Record(recordType: recordType, recordID: RecordID(recordName: recordName, zoneID: zoneID))
        }
        apply(to: &record)
        return record
    }

    /// Sets the entry's fields on a record (only those that differ, so unchanged keys are not sent).
    func apply(to record: inout StratusClient.Record) {
        for (key, value) in fields where record.fields[key] != value {
            record[key] = value
        }
        for key in cleared where record.fields[key] != nil {
            record[key] = Optional<FieldValue>.none
        }
    }
}

extension BaseRecord {
    /// A saved record as a last-synced version.
    init(saved: StratusClient.Record) {
        self.init(recordType: saved.recordType, record: saved.wireRecord, modificationDate: saved.modificationDate)
    }
}

extension StratusClient.Record {
    /// Whether this record, made from an entry, needs no request: the server has it and nothing differs.
    func sendsNothing(over base: BaseRecord?) -> Bool {
        base?.record.recordChangeTag != nil && changedKeys().isEmpty
    }
}

extension StratusError {
    /// Whether the error is worth retrying later (network, throttling, authentication, zone
    /// missing): the change stays queued. Anything else is a refusal for good.
    var isTransient: Bool {
        switch code {
        case .networkFailure, .networkUnavailable, .serviceUnavailable, .requestRateLimited, .notAuthenticated, .zoneNotFound,
            .serverResponseLost, .internalError:
            true
        default:
            false
        }
    }

    /// Rethrows the error when it is worth retrying later (``isTransient``).
    func rethrowIfTransient() throws {
        if isTransient { throw self }
    }
}
