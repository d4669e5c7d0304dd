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

    /// What a write may replace at its target. A remote change may only replace bytes this device has
    /// uploaded or kept: the file its state row describes, checked on the disk just before the rename.
    enum Replacing: Sendable {
        /// Nothing: the place must be free; a file there is one this device has not synced (``DocumentsError/Code/occupied``).
        case nothing
        /// Exactly this file (same inode, size and modification time); another one there is ``DocumentsError/Code/occupied``.
        case file(DiskEntry)
        /// Any regular file: the app's own coordinated write.
        case anyFile
    }

    /// Renames `temporary` (a finished file outside the documents, in `.stratus/tmp`) to `path`,
    /// creating the folders on the way, replacing only what `replacing` allows.
    ///
    /// - Throws: ``DocumentsError/Code/occupied`` when a file `replacing` does not allow is there (or
    ///   appears in between: without replacing, the file is hard-linked into place, which fails if the
    ///   name is taken); ``DocumentsError/Code/pathBlocked`` when a folder on the way is a link or a
    ///   file, or the place holds something other than a regular file; ``DocumentsError/Code/invalidPath``.
    func install(_ temporary: URL, at path: String, replacing: Replacing = .nothing) throws {
        try inParent(of: path, creating: true) { folder, name in
            let same = try Self.checkTarget(folder, name, path: path, replacing: replacing, source: nil)
            try Self.place(AT_FDCWD, temporary.path, at: folder, name, path: path, replacing: same ? .anyFile : replacing)
        }
    }

    /// Moves the regular file at `source` to `target` (folders created), replacing only what `replacing` allows.
    ///
    /// - Throws: ``DocumentsError/Code/notFound`` when `source` holds no regular file; otherwise as ``install(_:at:replacing:)``.
    func move(_ source: String, to target: String, replacing: Replacing = .nothing) throws {
        try inParent(of: source, creating: false) { from, fromName in
            guard let info = try Self.status(from, fromName, path: source), Self.isRegular(info) else {
                throw DocumentsError(.notFound, "no file to move to '\(target)'", path: source)
            }
            try inParent(of: target, creating: true) { to, toName in
                // The same file under another spelling (a case- or normalization-insensitive file system): a plain rename.
                let same = try Self.checkTarget(to, toName, path: target, replacing: replacing, source: info)
                try Self.place(from, fromName, at: to, toName, path: target, replacing: same ? .anyFile : replacing)
            }
        }
    }

    /// Deletes the folder at `path` if it is empty (never a link, a file or a folder with anything in it).
    ///
    /// - Returns: Whether a folder was removed.
    func removeEmptyFolder(_ path: String) -> Bool {
        (try? inParent(of: path, creating: false) { parent, name in unlinkat(parent, name, AT_REMOVEDIR) == 0 }) ?? false
    }

    /// What is at `path`, without following links; `nil` when nothing is (or a folder on the way is missing).
    func kind(_ path: String) -> EntryKind? {
        let found = try? inParent(of: path, creating: false) { folder, name -> EntryKind? in
            guard let info = try Self.status(folder, name, path: path) else { return nil }
            switch info.st_mode & S_IFMT {
            case S_IFREG: return .file(DiskScanner.entry(path, info))
            case S_IFDIR: return .folder
            case S_IFLNK: return .link
            default: return .special
            }
        }
        return found ?? nil
    }

    /// What a path holds on disk.
    enum EntryKind: Sendable, Equatable {
        case file(DiskEntry)
        case folder
        case link
        case special
    }

    /// The first folder on the way to `path` that is not a folder here (a file, a link), if any.
    func blockedAncestor(of path: String) -> (path: String, kind: EntryKind)? {
        var prefix = ""
        for component in DocumentPath.parent(of: path).split(separator: "/") {
            prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
            guard let kind = kind(prefix) else { return nil }
            if kind != .folder { return (prefix, kind) }
        }
        return nil
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

    /// Checks what is at the target before a write: `true` when it is the source file itself (another
    /// spelling of one name on an insensitive file system).
    private static func checkTarget(_ folder: Int32, _ name: String, path: String, replacing: Replacing, source: stat?) throws -> Bool {
        guard let info = try status(folder, name, path: path) else { return false }
        guard isRegular(info) else {
            let what = info.st_mode & S_IFMT == S_IFDIR ? "a folder" : info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "a special file"
            throw DocumentsError(.pathBlocked, "\(what) is where the document goes", path: path)
        }
        if let source, source.st_ino == info.st_ino, source.st_dev == info.st_dev { return true }
        switch replacing {
        case .anyFile: return false
        case .file(let expected) where DiskScanner.entry(path, info).sameFile(as: expected): return false
        case .file, .nothing: throw occupied(path)
        }
    }

    /// Puts the file `fromName` (in `from`) at `name` (in `folder`): `renameat` when it may replace a file,
    /// else `linkat` + `unlinkat`, which fails if the name was taken meanwhile instead of replacing it.
    private static func place(
        _ from: Int32, _ fromName: String, at folder: Int32, _ name: String, path: String, replacing: Replacing
    )
        throws
    {
        if case .nothing = replacing {
            if linkat(from, fromName, folder, name, 0) == 0 {
                unlinkat(from, fromName, 0)
                return
            }
            let code = errno
            if code == EEXIST { throw occupied(path) }
            // No hard links on this file system: check again, then rename (the window is this line).
            guard [EPERM, EXDEV, EMLINK, ENOTSUP, EOPNOTSUPP].contains(code) else { throw failure("cannot move the file into place", path: path, code) }
            if try status(folder, name, path: path) != nil { throw occupied(path) }
        }
        guard renameat(from, fromName, folder, name) == 0 else { throw renameFailure(path, errno) }
    }

    private static func occupied(_ path: String) -> DocumentsError {
        DocumentsError(.occupied, "a file this device has not synced is where the document goes; it is left alone", path: path)
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
