import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A regular file found in the container directory.
struct DiskEntry: Sendable, Hashable {
    var path: String
    var size: Int64
    var inode: UInt64
    var mtimeNs: Int64
}

/// Lists the container directory's regular files (not `.stratus`, not symbolic links) with `lstat(2)` metadata.
enum DiskScanner {
    static func scan(_ root: URL) throws -> [DiskEntry] {
        var entries: [DiskEntry] = []
        try walk(root.path, relative: "", into: &entries)
        return entries.sorted { $0.path < $1.path }
    }

    /// The metadata of one document path, `nil` when no regular file is there.
    static func entry(_ path: String, in root: URL) -> DiskEntry? {
        stat(DocumentPath.url(path, in: root).path, relative: path)
    }

    private static func walk(_ directory: String, relative: String, into entries: inout [DiskEntry]) throws {
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
            var info = Glibc.stat()
            guard lstat(full, &info) == 0 else { continue }  // vanished while listing
            switch info.st_mode & S_IFMT {
            case S_IFDIR: try walk(full, relative: child, into: &entries)
            case S_IFREG: entries.append(entry(child, info))
            default: continue
            }
        }
    }

    private static func stat(_ full: String, relative: String) -> DiskEntry? {
        var info = Glibc.stat()
        guard lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return entry(relative, info)
    }

    private static func entry(_ path: String, _ info: Glibc.stat) -> DiskEntry {
        DiskEntry(
            path: path, size: Int64(info.st_size), inode: UInt64(info.st_ino),
            mtimeNs: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
