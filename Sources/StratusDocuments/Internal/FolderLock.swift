import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock that makes one container the only owner of a synced folder: `flock(2)` on `.stratus/lock`.
///
/// Two owners of one folder race: each scans, uploads what it finds as new (twins), empties the other's
/// temporary files, and overwrites the other's state. The lock is held while the container is open and
/// released by ``release()``, by `deinit`, or by the kernel when the process ends (even by `kill -9`), so
/// a crash never leaves a folder locked. The file holds the owner's process ID, for the error message.
/// `flock` locks belong to an open file description: a second container in the same process is refused too.
final class FolderLock: Sendable {
    private let descriptor = Mutex<Int32?>(nil)

    /// Takes the lock of the folder whose hidden folder is `hidden`.
    ///
    /// - Parameters:
    ///   - hidden: The `.stratus` folder (it exists).
    ///   - folder: The synced folder, for the message.
    /// - Throws: ``DocumentsError/Code/folderInUse`` naming the owner's process ID when another holds it;
    ///   ``DocumentsError/Code/fileSystem`` when the lock file cannot be opened.
    init(in hidden: URL, folder: URL) throws {
        let path = hidden.appendingPathComponent("lock").path
        let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard opened >= 0 else {
            throw DocumentsError(.fileSystem, "cannot open the lock file '\(path)': \(String(cString: strerror(errno)))")
        }
        guard flock(opened, LOCK_EX | LOCK_NB) == 0 else {
            let owner = Self.owner(of: opened)
            close(opened)
            throw DocumentsError(
                .folderInUse,
                "the folder '\(folder.path)' is synced by another process\(owner.map { " (pid \($0))" } ?? ""); one process syncs a folder at a time: stop it first, or use it (`stratus docs conflicts` reads its state)"
            )
        }
        ftruncate(opened, 0)
        let text = "\(getpid())\n"
        _ = text.withCString { pwrite(opened, $0, strlen($0), 0) }
        descriptor.withLock { $0 = opened }
    }

    deinit { release() }

    /// Releases the lock (once; later calls do nothing).
    ///
    /// `LOCK_UN` before `close`: a child process another thread spawns shares the open file description
    /// from its `fork` until its `exec` closes the copy, and a bare `close` would leave the lock held by
    /// that copy for that window — a container closed and at once reopened was then refused.
    func release() {
        guard
            let opened = descriptor.withLock({ state -> Int32? in
                defer { state = nil }
                return state
            })
        else { return }
        flock(opened, LOCK_UN)
        close(opened)
    }

    /// The process ID written in a lock file, if it holds one.
    static func owner(of descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The process that holds the lock of a folder's hidden folder, if one does.
    static func holder(in hidden: URL) -> Int32? {
        let opened = open(hidden.appendingPathComponent("lock").path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard opened >= 0 else { return nil }
        defer { close(opened) }
        guard flock(opened, LOCK_SH | LOCK_NB) != 0 else {
            flock(opened, LOCK_UN)
            return nil
        }
        return owner(of: opened)
    }
}
