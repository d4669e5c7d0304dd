import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every file-system action the engine takes on a document path: resolved below the root, one
/// component at a time, through directory descriptors that never follow a symbolic link.
///
/// The path is first checked by ``DocumentPath/components(of:)`` (no `..`, no absolute path, no
/// `.stratus`…); then each folder on the way is opened with `openat(…, O_DIRECTORY | O_NOFOLLOW)`
/// from the one before it (created with `mkdirat` when an install needs it), and the last component
/// is acted on with `renameat`, `unlinkat` or `fstatat(AT_SYMLINK_NOFOLLOW)` relative to that
/// descriptor. So a symbolic link anywhere inside the synced folder — planted by whoever — cannot
/// carry a write, rename or deletion outside it, and a file or folder swapped in between a check and
/// the action cannot either. Only the root itself may be a symbolic link (the user chose it).
///
/// A path that cannot be used here — a folder on the way is a symbolic link or a file, or the
/// document's place holds a folder, a link or a device — fails with ``DocumentsError/Code/pathBlocked``.
struct DocumentTree: Sendable {
    let root: URL

    // MARK: Reading

    /// The regular file at `path`; `nil` when there is none there (nothing, a folder, a link, or a link on the way).
    func entry(_ path: String) -> DiskEntry? {
        let found = try? inParent(of: path, creating: false) { folder, name -> DiskEntry? in
            guard let info = try Self.status(folder, name, path: path), Self.isRegular(info) else { return nil }
            return DiskScanner.entry(path, info)
        }
        return found ?? nil
    }

    /// Whether nothing at all is at `path` (no file, folder or link), so a document can go there.
    func isFree(_ path: String) -> Bool {
        do {
            return try inParent(of: path, creating: false) { folder, name in try Self.status(folder, name, path: path) == nil }
        } catch let error as DocumentsError where error.code == .notFound {
            return true  // a folder on the way is missing: it would be created
        } catch {
            return false
        }
    }

    /// Opens the regular file at `path` for reading.
    ///
    /// - Throws: ``DocumentsError/Code/notFound`` when nothing is there, ``DocumentsError/Code/pathBlocked``
    ///   when it is not a regular file, ``DocumentsError/Code/invalidPath``.
    func openForReading(_ path: String) throws -> FileHandle {
        try inParent(of: path, creating: false) { folder, name in
            // O_NONBLOCK: opening a FIFO someone left at the path must not hang the sync.
            let descriptor = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                if code == ENOENT { throw DocumentsError(.notFound, "no file at this path", path: path) }
                if code == ELOOP { throw DocumentsError(.pathBlocked, "a symbolic link is where the document goes", path: path) }
                throw Self.failure("cannot open", path: path, code)
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0, Self.isRegular(info) else {
                close(descriptor)
                throw DocumentsError(.pathBlocked, "what is at this path is not a regular file", path: path)
            }
            return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }
    }

    // MARK: Writing

    /// Renames `temporary` (a finished file outside the documents, in `.stratus/tmp`) to `path`,
    /// creating the folders on the way; an existing regular file there is replaced atomically.
    ///
    /// - Throws: ``DocumentsError/Code/pathBlocked`` when a folder on the way is a link or a file, or
    ///   the place holds something other than a regular file; ``DocumentsError/Code/invalidPath``.
    func install(_ temporary: URL, at path: String) throws {
        try inParent(of: path, creating: true) { folder, name in
            try Self.requireFileOrNothing(folder, name, path: path)
            guard renameat(AT_FDCWD, temporary.path, folder, name) == 0 else { throw Self.renameFailure(path, errno) }
        }
    }

    /// Moves the regular file at `source` to `target` (folders created), replacing a regular file there.
    ///
    /// - Throws: ``DocumentsError/Code/notFound`` when `source` holds no regular file; otherwise as ``install(_:at:)``.
    func move(_ source: String, to target: String) throws {
        try inParent(of: source, creating: false) { from, fromName in
            guard let info = try Self.status(from, fromName, path: source), Self.isRegular(info) else {
                throw DocumentsError(.notFound, "no file to move to '\(target)'", path: source)
            }
            try inParent(of: target, creating: true) { to, toName in
                try Self.requireFileOrNothing(to, toName, path: target)
                guard renameat(from, fromName, to, toName) == 0 else { throw Self.renameFailure(target, errno) }
            }
        }
    }

    /// Deletes the regular file at `path` when `shouldRemove` accepts its metadata.
    ///
    /// - Returns: Whether a file was deleted (never a folder, a link, or anything behind a link).
    @discardableResult
    func removeFile(_ path: String, if shouldRemove: (DiskEntry) -> Bool = { _ in true }) -> Bool {
        let removed = try? inParent(of: path, creating: false) { folder, name -> Bool in
            guard let info = try Self.status(folder, name, path: path), Self.isRegular(info), shouldRemove(DiskScanner.entry(path, info))
            else { return false }
            return unlinkat(folder, name, 0) == 0
        }
        return removed ?? false
    }

    /// Removes the folders above `path` that are empty, deepest first, up to the root.
    func removeEmptyFolders(above path: String) {
        var folder = DocumentPath.parent(of: path)
        while !folder.isEmpty {
            // AT_REMOVEDIR removes only an empty folder, never a link (ENOTDIR) or a non-empty one (ENOTEMPTY).
            let removed = try? inParent(of: folder, creating: false) { parent, name in unlinkat(parent, name, AT_REMOVEDIR) == 0 }
            guard removed == true else { return }
            folder = DocumentPath.parent(of: folder)
        }
    }

    // MARK: Resolution

    private static let folderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC

    /// Runs `body` with a descriptor of the parent folder of `path` (opened component by component,
    /// never through a symbolic link; missing folders made when `creating`) and the last component.
    private func inParent<T>(of path: String, creating: Bool, _ body: (Int32, String) throws -> T) throws -> T {
        let components = try DocumentPath.components(of: path)
        var folder = open(root.path, Self.folderFlags)
        guard folder >= 0 else {
            let code = errno
            throw Self.failure("cannot open the synced folder '\(root.path)'", path: path, code)
        }
        defer { close(folder) }
        for (depth, name) in components.dropLast().enumerated() {
            var next = openat(folder, name, Self.folderFlags | O_NOFOLLOW)
            if next < 0, errno == ENOENT, creating {
                guard mkdirat(folder, name, 0o777) == 0 || errno == EEXIST else {
                    let code = errno
                    throw Self.failure("cannot create the folder '\(components.prefix(depth + 1).joined(separator: "/"))'", path: path, code)
                }
                next = openat(folder, name, Self.folderFlags | O_NOFOLLOW)
            }
            guard next >= 0 else {
                let code = errno
                let prefix = components.prefix(depth + 1).joined(separator: "/")
                switch code {
                case ENOENT: throw DocumentsError(.notFound, "the folder '\(prefix)' does not exist", path: path)
                case ELOOP, ENOTDIR:
                    throw DocumentsError(.pathBlocked, "'\(prefix)' is a symbolic link or a file, not a folder", path: path)
                default: throw Self.failure("cannot open the folder '\(prefix)'", path: path, code)
                }
            }
            close(folder)
            folder = next
        }
        return try body(folder, components[components.count - 1])
    }

    private static func status(_ folder: Int32, _ name: String, path: String) throws -> stat? {
        var info = stat()
        if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return info }
        if errno == ENOENT { return nil }
        throw failure("cannot read the metadata", path: path, errno)
    }

    private static func isRegular(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }

    private static func requireFileOrNothing(_ folder: Int32, _ name: String, path: String) throws {
        guard let info = try status(folder, name, path: path), !isRegular(info) else { return }
        let what = info.st_mode & S_IFMT == S_IFDIR ? "a folder" : info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "a special file"
        throw DocumentsError(.pathBlocked, "\(what) is where the document goes", path: path)
    }

    private static func renameFailure(_ path: String, _ code: Int32) -> DocumentsError {
        // Something took the place between the check and the rename: the same as finding it there.
        if [EISDIR, ENOTEMPTY, ENOTDIR, EEXIST].contains(code) {
            return DocumentsError(.pathBlocked, "a folder is where the document goes", path: path)
        }
        return failure("cannot move the new content into place", path: path, code)
    }

    private static func failure(_ what: String, path: String, _ code: Int32) -> DocumentsError {
        DocumentsError(.fileSystem, "\(what): \(String(cString: strerror(code)))", path: path)
    }
}
