import Foundation

/// Runs blocking work on a new OS thread and resumes the caller when it ends.
///
/// Argon2 hashing holds a core for tens of milliseconds; running it on the
/// Swift cooperative pool (one thread per core, two here) would stall every
/// other task for that long. A fresh thread costs tens of microseconds, which
/// is noise next to the hash, and the caller bounds how many run at once.
enum DedicatedThread {
    /// Runs `work` on a new thread and returns its result.
    static func run<Value: Sendable>(
        name: String,
        _ work: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result<Value, any Error> { try work() })
            }
            thread.name = name
            thread.start()
        }
    }
}
