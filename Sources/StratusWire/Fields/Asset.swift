/// A file attached to a record: the Asset dictionary.
///
/// The write-side keys (`fileChecksum`, `size`, `referenceChecksum`, `wrappingKey`, `receipt`) come
/// verbatim from the CDN upload reply (``AssetUploadReceipt``) or `assets/rereference`; read-side
/// values carry `downloadURL`, which contains the literal placeholder `${f}`.
///
/// CloudKit reference: Types ("Asset Dictionary"); protocol.md §2.6.
public struct Asset: Hashable, Sendable, Codable {
    /// The content checksum (base64), also the CDN path component.
    public var fileChecksum: String?
    /// The file size in bytes.
    public var size: Int64?
    /// The reference checksum (private database writes).
    public var referenceChecksum: String?
    /// The wrapping key (private database writes).
    public var wrappingKey: String?
    /// The upload receipt, needed when saving the record.
    public var receipt: String?
    /// Where to download the file; replace `${f}` with a file name.
    public var downloadURL: String?

    /// Creates an asset dictionary.
    ///
    /// - Parameters:
    ///   - fileChecksum: The content checksum.
    ///   - size: The size in bytes.
    ///   - referenceChecksum: The reference checksum.
    ///   - wrappingKey: The wrapping key.
    ///   - receipt: The upload receipt.
    ///   - downloadURL: The download URL template.
    public init(
        fileChecksum: String? = nil, size: Int64? = nil, referenceChecksum: String? = nil,
        wrappingKey: String? = nil, receipt: String? = nil, downloadURL: String? = nil
    ) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.referenceChecksum = referenceChecksum
        self.wrappingKey = wrappingKey
        self.receipt = receipt
        self.downloadURL = downloadURL
    }
}
