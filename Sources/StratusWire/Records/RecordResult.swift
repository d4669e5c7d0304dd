/// One entry of a `records` array in a response: a record, or a record fetch error.
///
/// Decoding tells them apart by the presence of `serverErrorCode`, as CloudKit clients do.
///
/// ```swift
/// import StratusWire
///
/// func handle(_ response: RecordsModify.Response) {
///     for result in response.records {
///         switch result {
///         case .record(let record): print("saved", record.recordName ?? "?")
///         case .error(let error) where error.serverErrorCode == .conflict: print("refetch", error.recordName ?? "?")
///         case .error(let error): print("failed:", error.reason ?? "\(error.serverErrorCode)")
///         }
///     }
/// }
/// ```
public enum RecordResult: Hashable, Sendable, Codable {
    /// The record (or a deletion acknowledgement `{"recordName":…,"deleted":true}`).
    case record(Record)
    /// The per-record failure.
    case error(RecordFetchError)

    /// Decodes a record or, when `serverErrorCode` is present, a record fetch error.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WireCodingKey.self)
        if container.contains(WireCodingKey("serverErrorCode")) {
            self = .error(try RecordFetchError(from: decoder))
        } else {
            self = .record(try Record(from: decoder))
        }
    }

    /// Encodes the record or the error dictionary.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .record(let record): try record.encode(to: encoder)
        case .error(let error): try error.encode(to: encoder)
        }
    }

    /// The record, if this entry succeeded.
    public var record: Record? {
        guard case .record(let record) = self else { return nil }
        return record
    }

    /// The error, if this entry failed.
    public var error: RecordFetchError? {
        guard case .error(let error) = self else { return nil }
        return error
    }

    /// The entry as a `Result`.
    public var result: Result<Record, RecordFetchError> {
        switch self {
        case .record(let record): .success(record)
        case .error(let error): .failure(error)
        }
    }
}
