public import Foundation
import Synchronization

/// A wall clock that a test moves by hand, in milliseconds since 1970, for every `now` the
/// product lets a caller inject (`ServiceConfiguration.now`, `QuotaConfiguration.now`,
/// `APNsConfiguration.now`, a client's or a sync configuration's `Date` clock).
///
/// Time stands still until the test calls ``advance(by:)`` or ``set(_:)``, so a test of an
/// expiry, a rate window or a lease says exactly when it happens instead of sleeping past it.
/// A clock made with `step` (1 for a server whose every stamp must differ) moves by that much
/// after each reading through ``now()``; ``milliseconds`` reads without moving it.
///
/// ```swift
/// import StratusServer
///
/// let clock = ManualClock()
/// var configuration = ServiceConfiguration(tokenSecret: Data(repeating: 7, count: 32))
/// configuration.now = clock.reader
/// clock.advance(by: 60_000)      // a minute later, at once
/// #expect(clock.milliseconds == 1_750_000_060_000)
/// ```
public final class ManualClock: Sendable {
    private let value: Mutex<Int64>
    /// Milliseconds each ``now()`` moves the clock on after reading it.
    public let step: Int64

    /// Makes a clock standing at `start`.
    ///
    /// - Parameters:
    ///   - start: Milliseconds since 1970; a fixed day in 2025 by default.
    ///   - step: How far each ``now()`` moves the clock; 0 (standing still) by default.
    public init(start: Int64 = 1_750_000_000_000, step: Int64 = 0) {
        value = Mutex(start)
        self.step = step
    }

    /// The time now, without moving the clock.
    public var milliseconds: Int64 { value.withLock { $0 } }

    /// Reads the clock, then moves it on by ``step``: the reading a server stamps with.
    ///
    /// - Returns: Milliseconds since 1970; with a step, the time after the step (so the first
    ///   reading of a clock made at `start` is `start + step`).
    public func now() -> Int64 {
        value.withLock {
            $0 += step
            return $0
        }
    }

    /// ``now()`` as the closure a configuration takes.
    public var reader: @Sendable () -> Int64 { { self.now() } }

    /// A `Date` clock (a device's) `skew` milliseconds off this one, read without moving it.
    ///
    /// - Parameter skew: How far ahead (positive) or behind the device's clock is.
    /// - Returns: The closure a client or sync configuration takes as its `now`.
    public func dates(skew: Int64 = 0) -> @Sendable () -> Date {
        { Date(timeIntervalSince1970: Double(self.milliseconds + skew) / 1000) }
    }

    /// Moves the clock forward (or back, with a negative delta).
    ///
    /// - Parameter delta: Milliseconds.
    public func advance(by delta: Int64) {
        value.withLock { $0 += delta }
    }

    /// Sets the clock to `milliseconds` since 1970.
    ///
    /// - Parameter milliseconds: The new time.
    public func set(_ milliseconds: Int64) {
        value.withLock { $0 = milliseconds }
    }
}
