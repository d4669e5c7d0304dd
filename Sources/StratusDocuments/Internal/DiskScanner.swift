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
}

/// Lists the container directory's regular files (not `.stratus`, not symbolic links) with `lstat(2)` metadata.
///
/// Names ``DocumentPath`` refuses (control characters, the reserved folder in any spelling) are not
/// documents: the scan skips them, and their folders' contents, and reports them.
enum DiskScanner {
    /// The files found and the paths skipped because they are not valid document paths.
    struct Listing: Sendable {
        var entries: [DiskEntry] = []
        var skipped: [String] = []
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
            throw DocumentsError(.fileSystem, "cannot list '\(directory)': \(error)", path: relative, underlying: error)
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

    /// A document path's entry from its `stat` metadata.
    static func entry(_ path: String, _ info: stat) -> DiskEntry {
        DiskEntry(
            path: path, size: Int64(info.st_size), inode: UInt64(info.st_ino),
            mtimeNs: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
