import Foundation

/// Server time minus device time, as last observed on a record this device had just written (the
/// server's "now"); kept in the bookkeeping across launches, it corrects local edit times.
struct ClockSkew: Sendable {
    /// The skew now.
    private(set) var skew: TimeInterval
    /// The skew as last written to the bookkeeping.
    private var stored: TimeInterval

    /// The skew read from the bookkeeping at launch.
    init(stored: TimeInterval) {
        skew = stored
        self.stored = stored
    }

    /// The time of a local edit made at `date` on the device clock, on the server's timeline.
    func editTime(_ date: Date) -> Date { date.addingTimeInterval(skew) }

    /// A server date on this device's clock.
    func deviceTime(_ date: Date?) -> Date? { date.map { $0.addingTimeInterval(-skew) } }

    /// A record written just now carries the server's date: the skew is that minus the device's `now`.
    mutating func observe(serverDate: Date, now: Date) { skew = serverDate.timeIntervalSince(now) }

    /// The skew to write to the bookkeeping, when it moved noticeably since it was last written.
    var unstored: TimeInterval? { abs(skew - stored) > 0.05 ? skew : nil }

    /// The skew was written to the bookkeeping.
    mutating func didStore(_ value: TimeInterval) { stored = value }
}

/// Bumped on each last-synced version an upload writes, so that a batch fetched before it cannot
/// overwrite it with an older version when its commit comes.
struct BaseGenerations: Sendable {
    /// The generation now: a fetch remembers it when it starts.
    private(set) var current = 0
    private var byName: [String: Int] = [:]

    /// An upload wrote (or removed) the base of `name`.
    mutating func bump(_ name: String) {
        current += 1
        byName[name] = current
    }

    /// Whether an upload wrote the base of `name` after a fetch that started at `generation`.
    func isNewer(_ name: String, than generation: Int) -> Bool {
        (byName[name] ?? 0) > generation
    }
}

/// The tasks a controller runs in the background, so `close()` can stop and await them and
/// `waitForIdle()` can await what a save set off. Whether each may start is the session state
/// machine's decision; these are only the handles.
struct BackgroundTasks: Sendable {
    /// The outbox drain.
    var drain: Task<Void, Never>?
    /// The reconnection retry.
    var reconnect: Task<Void, Never>?
    /// A sync started after a drain outside a sync found a record gone (the fetch decides its fate).
    var followUp: Task<Void, Never>?
    /// The courier listener and the push-triggered sync worker.
    var push: [Task<Void, Never>] = []

    /// Every task running.
    var all: [Task<Void, Never>] { push + [reconnect, drain, followUp].compactMap { $0 } }
}
