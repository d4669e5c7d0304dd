import Synchronization
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Process-wide counters of the round trips every ``PostgresConnection`` makes, for
/// benchmarks and diagnostics: how many, and how long the caller waited on them.
///
/// A round trip is one statement (`PQexec`/`PQexecParams`) or one pipeline; its time runs
/// from sending to the last result, so it holds the network, PostgreSQL's work and any
/// lock wait. `COMMIT`s are also counted on their own.
///
/// ```swift
/// let before = PostgresStatistics.snapshot()
/// try connection.execute("SELECT 1")
/// let spent = PostgresStatistics.snapshot() - before
/// print(spent.roundTrips, spent.waitNanoseconds, spent.commitNanoseconds)
/// ```
public enum PostgresStatistics {
    /// The counters at one moment; subtract two to get what happened in between.
    public struct Snapshot: Sendable, Equatable {
        /// Statements and pipelines sent.
        public var roundTrips: Int
        /// Nanoseconds spent waiting for their results.
        public var waitNanoseconds: Int
        /// `COMMIT` statements sent.
        public var commits: Int
        /// Nanoseconds spent waiting for `COMMIT`s (part of ``waitNanoseconds``).
        public var commitNanoseconds: Int

        /// No round trips.
        public static let zero = Snapshot(roundTrips: 0, waitNanoseconds: 0, commits: 0, commitNanoseconds: 0)

        /// What happened between `earlier` and `later`.
        public static func - (later: Snapshot, earlier: Snapshot) -> Snapshot {
            Snapshot(
                roundTrips: later.roundTrips - earlier.roundTrips, waitNanoseconds: later.waitNanoseconds - earlier.waitNanoseconds,
                commits: later.commits - earlier.commits, commitNanoseconds: later.commitNanoseconds - earlier.commitNanoseconds
            )
        }
    }

    private static let roundTrips = Atomic<Int>(0)
    private static let waitNanoseconds = Atomic<Int>(0)
    private static let commits = Atomic<Int>(0)
    private static let commitNanoseconds = Atomic<Int>(0)

    /// The counters now.
    public static func snapshot() -> Snapshot {
        Snapshot(
            roundTrips: roundTrips.load(ordering: .relaxed), waitNanoseconds: waitNanoseconds.load(ordering: .relaxed),
            commits: commits.load(ordering: .relaxed), commitNanoseconds: commitNanoseconds.load(ordering: .relaxed)
        )
    }

    /// Runs one round trip and counts it.
    static func measure<T>(commit: Bool = false, _ body: () throws -> T) rethrows -> T {
        let start = now()
        defer {
            let elapsed = now() - start
            roundTrips.add(1, ordering: .relaxed)
            waitNanoseconds.add(elapsed, ordering: .relaxed)
            if commit {
                commits.add(1, ordering: .relaxed)
                commitNanoseconds.add(elapsed, ordering: .relaxed)
            }
        }
        return try body()
    }

    private static func now() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return spec.tv_sec * 1_000_000_000 + spec.tv_nsec
    }
}
