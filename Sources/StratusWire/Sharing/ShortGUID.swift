/// A share to resolve or accept: the ShortGUID dictionary of `records/resolve` and `records/accept`.
///
/// CloudKit reference: Types ("ShortGUID Dictionary"); Apple's CloudKit Web Services Reference: “Sharing dictionaries”, “records/resolve”.
public struct ShortGUID: Hashable, Sendable, Codable {
    /// The short GUID from the share URL.
    public var value: String
    /// Whether to return the root record (Apple says required; live clients omit it).
    public var shouldFetchRootRecord: Bool?
    /// Fields of the root record to return.
    public var rootRecordDesiredKeys: [String]?

    /// Creates a short GUID request item.
    ///
    /// - Parameters:
    ///   - value: The short GUID.
    ///   - shouldFetchRootRecord: Whether to return the root record.
    ///   - rootRecordDesiredKeys: Fields of the root record to return.
    public init(value: String, shouldFetchRootRecord: Bool? = nil, rootRecordDesiredKeys: [String]? = nil) {
        self.value = value
        self.shouldFetchRootRecord = shouldFetchRootRecord
        self.rootRecordDesiredKeys = rootRecordDesiredKeys
    }
}
