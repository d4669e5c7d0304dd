import Foundation
import StratusCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where conflict versions' bytes are kept locally: `.stratus/versions/<SHA-256 hex of the record name>`.
///
/// A version's record name comes from the server, so it is never a file name (a name like
/// `../../dir` would reach outside the folder); its hash is 64 hex characters whatever it is.
enum VersionCopies {
    /// The local copy of the version record `recordName` in `folder`.
    static func file(_ recordName: String, in folder: URL) -> URL {
        folder.appendingPathComponent(SHA256.hash(Data(recordName.utf8)).hexString, isDirectory: false)
    }

    /// Deletes the local copy of a version, if any (a regular file only).
    static func remove(_ recordName: String, in folder: URL) {
        unlink(file(recordName, in: folder).path)
    }

    /// Renames copies an earlier release named after the record (`versions/<record name>`) to their hashed name.
    ///
    /// Only names that are one valid path component are looked at (the UUIDs this engine gives the
    /// versions it makes); anything else is left where it is, never followed.
    static func renameLegacyCopies(in folder: URL, versions: [LocalVersion]) {
        for version in versions where version.downloaded {
            let name = version.record.recordName
            guard !name.contains("/"), (try? DocumentPath.validate(name)) != nil else { continue }
            let legacy = folder.appendingPathComponent(name, isDirectory: false).path
            var info = stat()
            guard lstat(legacy, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            _ = rename(legacy, file(name, in: folder).path)
        }
    }
}
