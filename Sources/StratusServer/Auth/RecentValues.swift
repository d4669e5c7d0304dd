import Synchronization

/// What was derived lately from texts that every request presents again — the hash of an API
/// token, what a web auth token names — so a request looks it up instead of deriving it again
/// (design note 0006, "Work per request").
///
/// Only derivations that depend on nothing but the text belong here: the value must be what
/// deriving it again would give, forever. Whether a credential is still good (revoked, expired,
/// signed out) is never remembered here; that is read from the store on every request.
/// Bounded: when full, the table starts over.
final class RecentValues<Value: Sendable>: Sendable {
    private let entries = Mutex<[String: Value]>([:])
    private let capacity: Int

    /// A table of at most `capacity` texts.
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// The value derived from `text`, if it was remembered.
    func value(of text: String) -> Value? {
        entries.withLock { $0[text] }
    }

    /// Remembers the value derived from `text`.
    func remember(_ value: Value, of text: String) {
        entries.withLock { table in
            if table.count >= capacity, table[text] == nil { table.removeAll(keepingCapacity: true) }
            table[text] = value
        }
    }

    /// The value of `text`: remembered, or derived with `derive` and remembered (when not `nil`).
    func value(of text: String, derive: (String) -> Value?) -> Value? {
        if let known = value(of: text) { return known }
        guard let derived = derive(text) else { return nil }
        remember(derived, of: text)
        return derived
    }
}
