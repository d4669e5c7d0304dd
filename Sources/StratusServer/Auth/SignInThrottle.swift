import Synchronization

/// Slows down password guessing without letting anyone lock an account for its owner.
///
/// Two tables, in memory (a restart forgets them), bounded in size:
///
/// - **Per account and client address**: the first ``SignInLimits/freeFailures`` failures cost
///   nothing; after that, each attempt must come at least a delay after the previous failure, the
///   delay doubling with each failure (``SignInLimits/firstDelay`` … ``SignInLimits/maximumDelay``).
///   Failures from one address never slow the account down for another address. A success clears
///   the pair; a pair is forgotten ``SignInLimits/failureMemory`` after its last failure.
/// - **Per client address**: at most ``SignInLimits/attemptsPerAddress`` attempts per
///   ``SignInLimits/addressWindow``, whatever the account.
/// - **Per account**, when ``SignInLimits/failuresPerAccount`` is set: at most that many
///   unsuccessful attempts per ``SignInLimits/accountWindow`` from all addresses together.
///
/// The address is `HTTPRequest.remoteAddress`: the socket's peer, or behind a configured trusted
/// proxy the client it names (see `TrustedProxies`).
public final class SignInThrottle: Sendable {
    private struct Window {
        var start: Int64
        var count: Int
    }

    private struct Failures {
        var count: Int
        var last: Int64
    }

    private struct State {
        var pairs: [String: Failures] = [:]
        var addresses: [String: Window] = [:]
        var accounts: [String: Window] = [:]
    }

    private let limits: SignInLimits
    private let state = Mutex(State())
    /// The most keys kept per table; stale entries are dropped first when it is reached.
    private let maximumEntries = 100_000

    /// Creates empty tables with these limits (the console keeps its own, apart from app sign-in).
    public init(limits: SignInLimits) {
        self.limits = limits
    }

    /// Counts an attempt from `address` on `account`; returns the seconds to wait if the address is
    /// over its limit or the pair must still wait after its last failure.
    ///
    /// An admitted attempt counts as a failure of the pair until ``recordSuccess(account:address:)``
    /// clears it, so attempts sent in parallel cannot all slip in before the first failure is known.
    public func admit(account: String, address: String, now: Int64) -> Int? {
        state.withLock { state in
            let addressWindow = limits.addressWindow.milliseconds
            var byAddress = state.addresses[address].flatMap { now - $0.start < addressWindow ? $0 : nil } ?? Window(start: now, count: 0)
            byAddress.count += 1
            Self.store(byAddress, for: address, in: &state.addresses, maximum: maximumEntries) { now - $0.start < addressWindow }
            if byAddress.count > limits.attemptsPerAddress {
                return Self.seconds(byAddress.start + addressWindow - now)
            }
            let key = Self.pair(account, address)
            let failures = current(state.pairs[key], now: now)
            if let failures {
                let wait = delay(afterFailures: failures.count) - (now - failures.last)
                if wait > 0 { return Self.seconds(wait) }
            }
            if let wait = countAccountAttempt(account, now: now, in: &state) { return wait }
            let memory = limits.failureMemory.milliseconds
            let counted = Failures(count: (failures?.count ?? 0) + 1, last: now)
            Self.store(counted, for: key, in: &state.pairs, maximum: maximumEntries) { now - $0.last < memory }
            return nil
        }
    }

    /// Counts an attempt on `account` from any address; the seconds to wait if it is over ``SignInLimits/failuresPerAccount``.
    private func countAccountAttempt(_ account: String, now: Int64, in state: inout State) -> Int? {
        guard let limit = limits.failuresPerAccount else { return nil }
        let window = limits.accountWindow.milliseconds
        var byAccount = state.accounts[account].flatMap { now - $0.start < window ? $0 : nil } ?? Window(start: now, count: 0)
        if byAccount.count >= limit { return Self.seconds(byAccount.start + window - now) }
        byAccount.count += 1
        Self.store(byAccount, for: account, in: &state.accounts, maximum: maximumEntries) { now - $0.start < window }
        return nil
    }

    /// Forgets the failures of `account` from `address` after a successful sign-in from there (and
    /// takes this attempt off the account's count: it was not a failure).
    public func recordSuccess(account: String, address: String) {
        state.withLock { state in
            _ = state.pairs.removeValue(forKey: Self.pair(account, address))
            if var byAccount = state.accounts[account], byAccount.count > 0 {
                byAccount.count -= 1
                state.accounts[account] = byAccount
            }
        }
    }

    /// The wait, in milliseconds, that `count` failures impose before the next attempt.
    func delay(afterFailures count: Int) -> Int64 {
        guard count >= limits.freeFailures else { return 0 }
        let maximum = limits.maximumDelay.milliseconds
        let doublings = count - limits.freeFailures
        guard doublings < 40 else { return maximum }
        return min(maximum, limits.firstDelay.milliseconds << doublings)
    }

    private func current(_ failures: Failures?, now: Int64) -> Failures? {
        guard let failures, now - failures.last < limits.failureMemory.milliseconds else { return nil }
        return failures
    }

    /// One key per account and address; the separator cannot occur in either.
    private static func pair(_ account: String, _ address: String) -> String {
        account + "\u{0}" + address
    }

    private static func store<Value>(
        _ value: Value, for key: String, in table: inout [String: Value], maximum: Int, isLive: (Value) -> Bool
    ) {
        if table[key] == nil, table.count >= maximum {
            table = table.filter { isLive($0.value) }
            if table.count >= maximum, let victim = table.keys.first {
                table.removeValue(forKey: victim)
            }
        }
        table[key] = value
    }

    private static func seconds(_ milliseconds: Int64) -> Int {
        max(1, Int((milliseconds + 999) / 1000))
    }
}
