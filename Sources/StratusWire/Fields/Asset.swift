public import Foundation

/// A file attached to a record: the Asset dictionary.
///
/// The write-side keys (`fileChecksum`, `size`, `referenceChecksum`, `wrappingKey`, `receipt`) come
/// verbatim from the CDN upload reply (``AssetUploadReceipt``) or `assets/rereference`; read-side
/// values carry `downloadURL`, which contains the literal placeholder `${f}`.
///
/// ``localFileURL`` (a file a client will upload) is not part of the dictionary: it is never encoded
/// or decoded, so nothing received from the network can make a client read a local file.
///
/// CloudKit reference: Types ("Asset Dictionary"); Apple's CloudKit Web Services Reference: “Asset dictionary”.
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
    /// A local file to upload when the record is saved (the SDK's `Asset(fileURL:)`); `nil` for an
    /// asset that came from a server.
    ///
    /// Only code in this process sets it: it is neither encoded nor decoded, so a server sending
    /// `{"downloadURL": "file:///home/me/.ssh/id_ed25519"}` gets an asset with that (refused)
    /// download URL, not a file the client would read and upload on the next save.
    public var localFileURL: URL?

    private enum CodingKeys: String, CodingKey {
        case fileChecksum, size, referenceChecksum, wrappingKey, receipt, downloadURL
    }

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
