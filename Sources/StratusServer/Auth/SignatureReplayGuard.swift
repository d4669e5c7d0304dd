import StratusCrypto
import StratusServerCrypto
import StratusLogging
import Synchronization

/// Remembers the server-to-server signatures this node accepted for as long as their date is
/// acceptable, so each signature is used once (design note 0006, "Replays").
///
/// A signature is remembered until its signed date plus the date tolerance: after that the date
/// check refuses it anyway. Entries are kept in buckets by the minute they expire, so forgetting
/// is dropping whole buckets. At most ``capacity`` signatures are kept; past that the soonest to
/// expire are forgotten first (and a warning is logged once), which keeps memory bounded under
/// any load at the price of remembering less than the whole window.
///
/// ```swift
/// let replays = SignatureReplayGuard(capacity: 1_000_000, logger: logger)
/// guard replays.admit(identity, expiresAt: signedAt + tolerance, now: now) else { throw replayed }
/// ```
final class SignatureReplayGuard: Sendable {
    private struct State {
        /// Identities by the minute (since 1970) by whose end they expire.
        var buckets: [Int64: Set<ServerToServerSignature.Identity>] = [:]
        var count = 0
        var warnedFull = false
    }

    /// The most signatures remembered at once; `0` remembers none (replays are not detected).
    let capacity: Int
    private let logger: Logger
    private let state = Mutex(State())

    init(capacity: Int, logger: Logger) {
        self.capacity = max(0, capacity)
        self.logger = logger
    }

    /// How many signatures are remembered now.
    var count: Int { state.withLock { $0.count } }

    /// Records a signature's identity until `expiresAt` (milliseconds since 1970).
    ///
    /// - Returns: `false` when the identity is already remembered: the signature was used before.
    func admit(_ identity: ServerToServerSignature.Identity, expiresAt: Int64, now: Int64) -> Bool {
        guard capacity > 0 else { return true }
        let minute = (expiresAt + 59_999) / 60_000
        let currentMinute = now / 60_000
        let (admitted, overflowed) = state.withLock { state -> (Bool, Bool) in
            for (key, bucket) in state.buckets where key < currentMinute {
                state.count -= bucket.count
                state.buckets[key] = nil
            }
            for bucket in state.buckets.values where bucket.contains(identity) { return (false, false) }
            state.buckets[minute, default: []].insert(identity)
            state.count += 1
            var overflowed = false
            while state.count > capacity, let oldest = state.buckets.keys.min(), let bucket = state.buckets.removeValue(forKey: oldest) {
                state.count -= bucket.count
                if !state.warnedFull {
                    overflowed = true
                    state.warnedFull = true
                }
            }
            return (true, overflowed)
        }
        if overflowed {
            logger.warning(
                "more than \(capacity) server-to-server signatures within the date tolerance: the oldest are forgotten, so a replay of one of them would not be noticed; raise the capacity"
            )
        }
        return admitted
    }
}
