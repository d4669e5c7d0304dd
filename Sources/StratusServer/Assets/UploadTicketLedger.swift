import Synchronization

/// Which upload URLs are in use or spent, so each is good for one upload (issue 14, finding 17).
///
/// An upload claims its URL's nonce when its head arrives, before any byte of the body is read:
/// a second upload with the same URL is refused while the first runs and after it succeeds. An
/// upload that does not finish (the client went away, the store refused it) gives the claim back,
/// so the client may retry with the same URL until it expires.
///
/// Kept in memory by each node, for the URLs' lifetime: with several nodes behind one address,
/// a URL can be spent once on each node at most (Documentation/0007-push-and-assets.md).
final class UploadTicketLedger: Sendable {
    private struct Entry {
        var spent: Bool
        var expires: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let maximumEntries: Int

    /// Creates an empty ledger holding at most `maximumEntries` unexpired URLs.
    init(maximumEntries: Int = 100_000) {
        self.maximumEntries = maximumEntries
    }

    /// Claims the URL with `nonce` for one upload; `false` if it is in use or spent, or if the
    /// ledger is full of unexpired URLs.
    func claim(_ nonce: String, expires: Int64, now: Int64) -> Bool {
        entries.withLock { table in
            if table.count >= maximumEntries { table = table.filter { $0.value.expires > now } }
            guard table[nonce] == nil, table.count < maximumEntries else { return false }
            table[nonce] = Entry(spent: false, expires: expires)
            return true
        }
    }

    /// Gives back a claim whose upload did not finish.
    func release(_ nonce: String) {
        entries.withLock { table in
            if table[nonce]?.spent == false { table[nonce] = nil }
        }
    }

    /// Marks the URL spent: its upload succeeded.
    func spend(_ nonce: String) {
        entries.withLock { $0[nonce]?.spent = true }
    }
}
