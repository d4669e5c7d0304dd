/// The record a new share covers: the `forRecord` dictionary `{recordName, recordChangeTag}`.
///
/// CloudKit reference: Types ("Record Dictionary", `forRecord`); Apple's CloudKit Web Services Reference: “Record dictionary”, “records/modify”.
public struct ShareRoot: Hashable, Sendable, Codable {
    /// The root record's name.
    public var recordName: String
    /// The root record's current change tag.
    public var recordChangeTag: ChangeTag?

    /// Creates a share root pointer.
    ///
    /// - Parameters:
    ///   - recordName: The root record's name.
    ///   - recordChangeTag: The root record's current change tag.
    public init(recordName: String, recordChangeTag: ChangeTag? = nil) {
        self.recordName = recordName
        self.recordChangeTag = recordChangeTag
    }
}
