import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file found in the container directory.
struct DiskEntry: Sendable, Hashable {
    var path: String
    var size: Int64
    var inode: UInt64
    var mtimeNs: Int64

    /// Whether `other` describes the same file in the same state (inode, size, modification time).
    func sameFile(as other: DiskEntry) -> Bool {
        inode == other.inode && size == other.size && mtimeNs == other.mtimeNs
    }
}

/// Lists the container directory's regular files (not `.stratus`, not symbolic links) with `lstat(2)` metadata.
///
/// Names ``DocumentPath`` refuses (control characters, the reserved folder in any spelling) are not
/// documents: the scan skips them, and their folders' contents, and reports them. A folder below the
/// root that cannot be listed (no permission) is reported too and skipped, not taken for empty.
enum DiskScanner {
    /// The files found, the paths skipped because they are not valid document paths, and the folders
    /// that could not be read (with why).
    struct Listing: Sendable {
        var entries: [DiskEntry] = []
        var skipped: [String] = []
        var unreadable: [(path: String, reason: String)] = []
    }

    static func scan(_ root: URL) throws -> Listing {
        var listing = Listing()
        try walk(root.path, relative: "", into: &listing)
        listing.entries.sort { $0.path < $1.path }
        return listing
    }

    private static func walk(_ directory: String, relative: String, into listing: inout Listing) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            guard !relative.isEmpty else {
                throw DocumentsError(.fileSystem, "cannot list '\(directory)': \(error)", path: relative, underlying: error)
            }
            listing.unreadable.append((relative, "cannot read the folder (\(reason(of: error)))"))
            return
        }
        for name in names {
            if relative.isEmpty && name == DocumentPath.reservedFolder { continue }
            let child = relative.isEmpty ? name : relative + "/" + name
            let full = directory + "/" + name
            var info = stat()
            guard lstat(full, &info) == 0 else { continue }  // vanished while listing
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { continue }
            guard (try? DocumentPath.validate(child)) != nil else {
                listing.skipped.append(DocumentPath.printable(child))
                continue
            }
            if kind == S_IFDIR {
                try walk(full, relative: child, into: &listing)
            } else {
                listing.entries.append(entry(child, info))
            }
        }
    }

    /// The system's words for a failure (`Permission denied`), else the error's description.
    static func reason(of error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        if let documents = error as? DocumentsError { return documents.message }
        return "\(error)"
    }

    /// A document path's entry from its `stat` metadata.
    static func entry(_ path: String, _ info: stat) -> DiskEntry {
        // The modification time is `st_mtim` in glibc and musl, `st_mtimespec` in Darwin.
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        return DiskEntry(
            path: path, size: Int64(info.st_size), inode: UInt64(info.st_ino),
            mtimeNs: Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec))
    }
}
