/// `records/modify`: create, update, replace and delete records.
///
/// ```swift
/// let request = RecordsModify.Request(
///     operations: [.create(Record(recordName: "t1", recordType: "Task", fields: ["title": .string("Ship")]))],
///     zoneID: ZoneID(zoneName: "Projects"))
/// ```
///
/// CloudKit reference: Modifying Records (records/modify); Apple's CloudKit Web Services Reference: “records/modify”.
public enum RecordsModify: WireEndpoint {
    /// `records/modify`.
    public static let operation = EndpointOperation.recordsModify

    /// The `records/modify` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The operations, applied in order (at most 200).
        public var operations: [RecordOperation]
        /// The zone of every operation; `nil` means `_defaultZone`.
        public var zoneID: ZoneID?
        /// The wire `atomic` key; `nil` means the default, `true` (honoured only in custom zones).
        public var atomic: Bool?
        /// Fields to echo back in results; `nil` means all, `[]` none.
        public var desiredKeys: [String]?
        /// Ask for number field values as strings in the response.
        public var numbersAsStrings: Bool?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - operations: The operations.
        ///   - zoneID: The zone of every operation.
        ///   - atomic: All-or-nothing (`nil` leaves the key out: `true`).
        ///   - desiredKeys: Fields to echo back.
        ///   - numbersAsStrings: Ask for number values as strings.
        public init(
            operations: [RecordOperation], zoneID: ZoneID? = nil, atomic: Bool? = nil, desiredKeys: [String]? = nil,
            numbersAsStrings: Bool? = nil
        ) {
            self.operations = operations
            self.zoneID = zoneID
            self.atomic = atomic
            self.desiredKeys = desiredKeys
            self.numbersAsStrings = numbersAsStrings
        }

        /// Whether the batch is all-or-nothing (the default when `atomic` is absent).
        public var isAtomic: Bool { atomic ?? true }

        /// The zone the operations address (the default zone when `zoneID` is absent).
        public var effectiveZoneID: ZoneID { zoneID ?? .defaultZone }
    }

    /// The `records/modify` response body: one result per operation, in request order.
    public struct Response: Hashable, Sendable, Codable {
        /// Saved records, deletion acknowledgements or per-record errors.
        public var records: [RecordResult]

        /// Creates a response.
        ///
        /// - Parameter records: One result per operation.
        public init(records: [RecordResult]) {
            self.records = records
        }
    }
}
