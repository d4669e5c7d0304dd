import Foundation
import StratusClient

/// A local change to send: the change, the file as hashed, the record it updates and the new digest.
struct Plan {
    var change: LocalChangeDetector.Change
    var entry: DiskEntry
    /// The record as this device last saw it on the server (its tag and chunks), or a pending record.
    var base: DocumentRecord
    /// The new content's digest; `nil` for a rename that changed no byte.
    var digest: FileDigest?
}

/// A plan made ready to save: the record and the chunk files copied out for it.
struct Upload {
    var plan: Plan
    var record: StratusClient.Record
    var document: DocumentRecord
    var temporaryFiles: [URL]
    var bytes: Int64
    var chunks: Int
}
