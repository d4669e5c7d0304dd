import Synchronization

/// Counts sign-in attempts per account and per client address in fixed windows.
///
/// An account with too many failures, or an address with too many attempts, is
/// refused until its window ends; a successful sign-in clears the account's
/// failures. Counters live in memory (a restart forgets them), bounded in size.
final class SignInThrottle: Sendable {
    private struct Window {
        var start: Int64
        var count: Int
    }

    private struct State {
        var accounts: [String: Window] = [:]
        var addresses: [String: Window] = [:]
    }

    private let limits: SignInLimits
    private let state = Mutex(State())
    /// The most keys kept per table; expired windows are dropped first when it is reached.
    private let maximumEntries = 100_000

    init(limits: SignInLimits) {
        self.limits = limits
    }

    /// Counts an attempt from `address` on `account`; returns the seconds to wait if either is over its limit.
    func admit(account: String, address: String, now: Int64) -> Int? {
        state.withLock { state in
            let accountWindow = limits.accountWindow.milliseconds
            let addressWindow = limits.addressWindow.milliseconds
            var byAddress = Self.current(state.addresses[address], now: now, length: addressWindow)
            byAddress.count += 1
            Self.store(byAddress, for: address, in: &state.addresses, now: now, length: addressWindow, maximum: maximumEntries)
            if byAddress.count > limits.attemptsPerAddress {
                return Self.seconds(until: byAddress.start + addressWindow, from: now)
            }
            let byAccount = Self.current(state.accounts[account], now: now, length: accountWindow)
            if byAccount.count >= limits.failuresPerAccount {
                return Self.seconds(until: byAccount.start + accountWindow, from: now)
            }
            return nil
        }
    }

    /// Counts a failed attempt on `account`.
    func recordFailure(account: String, now: Int64) {
        state.withLock { state in
            let length = limits.accountWindow.milliseconds
            var window = Self.current(state.accounts[account], now: now, length: length)
            window.count += 1
            Self.store(window, for: account, in: &state.accounts, now: now, length: length, maximum: maximumEntries)
        }
    }

    /// Forgets the failures of `account` after it signed in.
    func recordSuccess(account: String) {
        state.withLock { _ = $0.accounts.removeValue(forKey: account) }
    }

    private static func current(_ window: Window?, now: Int64, length: Int64) -> Window {
        guard let window, now - window.start < length else { return Window(start: now, count: 0) }
        return window
    }

    private static func store(_ window: Window, for key: String, in table: inout [String: Window], now: Int64, length: Int64, maximum: Int) {
        if table[key] == nil, table.count >= maximum {
            table = table.filter { now - $0.value.start < length }
            if table.count >= maximum, let victim = table.min(by: { $0.value.start < $1.value.start })?.key {
                table.removeValue(forKey: victim)
            }
        }
        table[key] = window
    }

    private static func seconds(until end: Int64, from now: Int64) -> Int {
        max(1, Int((end - now + 999) / 1000))
    }
}
