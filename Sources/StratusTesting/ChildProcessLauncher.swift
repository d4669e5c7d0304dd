public import Foundation
import Synchronization

/// Starts child processes one at a time.
///
/// swift-corelibs-foundation's `Process.run()` is not safe to call from several
/// threads at once on Linux (seen here as crashes inside `run()` when parallel
/// tests spawned `stratus` and `openssl` together); tests launch every child
/// through this one lock. Waiting for the child is not serialized.
///
/// ```swift
/// try ChildProcessLauncher.launch(process)
/// ```
public enum ChildProcessLauncher {
    private static let lock = Mutex(())

    /// Runs `process.run()` while no other test is starting a process.
    ///
    /// - Throws: What `Process.run()` throws.
    public static func launch(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }
}
