import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sets the permissions of a database file and its companions (``SQLiteConfiguration/fileMode``).
enum SQLiteFileMode {
    /// The companions SQLite keeps beside a database file in WAL mode.
    static let companionSuffixes = ["-wal", "-shm"]

    /// Gives the database file at `path` (creating it empty if it does not exist) and any
    /// companions already there the permission bits `mode` (``SQLiteConfiguration/fileMode``).
    ///
    /// An empty file is a valid empty database to SQLite; creating it here, with `O_EXCL` and
    /// the mode, means the file never exists with wider permissions, whatever the umask.
    ///
    /// - Throws: ``SQLiteError`` `CANTOPEN` naming the file and the system's reason.
    static func apply(_ mode: UInt16, to path: String) throws {
        let permissions = mode_t(mode)
        let created = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, permissions)
        if created >= 0 {
            defer { close(created) }
            // The umask may have cleared bits that `mode` asks for.
            guard fchmod(created, permissions) == 0 else { throw modeError(path) }
            return
        }
        guard errno == EEXIST else { throw modeError(path) }
        for file in [path] + companionSuffixes.map({ path + $0 }) {
            guard chmod(file, permissions) == 0 || (errno == ENOENT && file != path) else { throw modeError(file) }
        }
    }

    private static func modeError(_ path: String) -> SQLiteError {
        SQLiteError(
            code: .cantOpen, message: "cannot set the permissions of \(path): \(String(cString: strerror(errno)))",
            operation: "open \(path)")
    }
}
