import Foundation
import StratusClient
import StratusCrypto
import StratusWire

/// Where the public-database fetch stands: per record type, the latest server modification time
/// applied. Stored in the bookkeeping's change-token slot, so a stale ``FinishSync`` is recognised
/// exactly like a stale change token.
struct PublicCursor: Codable, Equatable, Sendable {
    /// Record type → latest modification time seen, in milliseconds since 1970 (server time).
    var anchors: [String: Int64] = [:]

    init() {}

    /// Reads a cursor from the stored token; `nil` is the cursor of a device that never fetched.
    init(token: SyncToken?) throws(SyncError) {
        guard let token else { return }
        do {
            self = try JSONDecoder().decode(PublicCursor.self, from: Data(token.rawValue.utf8))
        } catch {
            throw SyncError(.corruptBookkeeping, "the public-database cursor '\(token.rawValue)' cannot be read", underlying: error)
        }
    }

    /// The cursor as a token (keys sorted, so equal cursors give equal tokens).
    var token: SyncToken {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return SyncToken(rawValue: String(decoding: data, as: UTF8.self))
    }

    /// Where the next query of `recordType` starts: the anchor minus the overlap window; `nil` for everything.
    func queryStart(_ recordType: String, overlap: Duration) -> Date? {
        guard let anchor = anchors[recordType] else { return nil }
        return Date(timeIntervalSince1970: Double(anchor) / 1000 - overlap.seconds)
    }

    /// Moves the anchor of `recordType` forward to `date` (never back).
    mutating func advance(_ recordType: String, to date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        anchors[recordType] = max(anchors[recordType] ?? .min, milliseconds)
    }
}

/// The names and rules of the public database's Device and DeleteQueue records (pure).
enum PublicRecords {
    /// One per registered device; its server modification date is the device's last check-in.
    static let deviceType = "StratusDevice"
    /// One per deleted record per registered device, removed once that device has applied it.
    static let deleteQueueType = "StratusDeleteQueue"
    /// Device record fields.
    static let deviceIDField = "deviceID"
    static let lastCheckInField = "lastCheckIn"
    /// DeleteQueue record fields (the original design's names).
    static let queueDeviceField = "dq_deviceID"
    static let queueRecordField = "dq_recordID"
    static let queueTypeField = "dq_recordType"

    /// The record name of a device's Device record.
    static func deviceRecordName(_ deviceID: String) -> String {
        "StratusDevice-" + digest(deviceID)
    }

    /// The record name of the DeleteQueue entry telling `deviceID` that `recordName` was deleted:
    /// deterministic, so a retried deletion never queues twice.
    static func queueRecordName(deviceID: String, recordName: String) -> String {
        "StratusDeleteQueue-" + digest(deviceID + "\n" + recordName)
    }

    /// The ID of the push subscription on the DeleteQueue entries addressed to `deviceID`.
    static func queueSubscriptionID(_ deviceID: String) -> String {
        "StratusSync.\(deleteQueueType)." + digest(deviceID)
    }

    /// Whether a device whose last check-in was `lastCheckIn` is retired at `now` (both server times).
    static func isRetired(lastCheckIn: Date?, now: Date, after retirement: Duration) -> Bool {
        guard let lastCheckIn else { return true }
        return now.timeIntervalSince(lastCheckIn) > retirement.seconds
    }

    private static func digest(_ text: String) -> String {
        String(SHA256.hash(text).hexString.prefix(40))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
