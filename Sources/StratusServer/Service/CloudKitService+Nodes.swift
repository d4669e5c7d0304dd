extension CloudKitService {
    /// Wakes the web-courier polls parked on this node for `tokens`.
    ///
    /// For back ends shared by several nodes: another node committed notifications for these
    /// tokens (they are already in the store's queues), and this node's parked polls should
    /// fetch them now rather than at their timeout. Unknown tokens are ignored.
    ///
    /// - Parameter tokens: Web courier tokens.
    public func signalPush(tokens: Set<String>) {
        courier.signal(tokens)
    }
}
