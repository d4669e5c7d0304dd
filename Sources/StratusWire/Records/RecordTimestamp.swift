/// Who changed a record and when: the `created`/`modified` Timestamp dictionary.
///
/// Set by the server; clients must not send it.
///
/// CloudKit reference: Types ("Timestamp Dictionary"); Apple's CloudKit Web Services Reference: “Record dictionary”.
public struct RecordTimestamp: Hashable, Sendable, Codable {
    /// When, in whole milliseconds since 1970.
    public var timestamp: Timestamp
    /// The user who made the change.
    public var userRecordName: String?
    /// The device that made the change (Apple's sample shows `"iCloud"`).
    public var deviceID: String?

    /// Creates a timestamp dictionary.
    ///
    /// - Parameters:
    ///   - timestamp: When.
    ///   - userRecordName: The user who made the change.
    ///   - deviceID: The device that made the change.
    public init(timestamp: Timestamp, userRecordName: String? = nil, deviceID: String? = nil) {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }
}
