public import StratusLogging
import StratusPostgres
public import StratusServer

/// Wakes the long-polls parked on this node when any node queues notifications for their tokens.
///
/// A write that queues a notification sends `pg_notify(store.pushChannel, token)` in its own
/// transaction, so the wake-up is delivered exactly when the notification is committed (never
/// for a rolled-back write) to every node listening. The queue itself lives in tables: a
/// wake-up lost while a node reconnects costs only latency, since a poll checks the queue when
/// it parks and when it times out.
///
/// ```swift
/// let relay = try PostgresPushRelay(store: store) { [service] tokens in service.signalPush(tokens: tokens) }
/// // … at shutdown:
/// relay.stop()
/// ```
public final class PostgresPushRelay: PushRelay {
    private let listener: PostgresNotificationListener
    private let task: Task<Void, Never>

    /// Starts listening on the store's push channel.
    ///
    /// - Parameters:
    ///   - store: The store whose writes announce tokens.
    ///   - logger: Where the listener logs reconnections.
    ///   - wake: Called with the tokens of each committed write that queued notifications.
    /// - Throws: `PostgresError` when the listening connection cannot be made.
    public init(store: PostgresRecordStore, logger: Logger = .disabled, wake: @escaping @Sendable (Set<String>) -> Void) throws {
        listener = try PostgresNotificationListener(url: store.url, channels: [store.pushChannel], logger: logger)
        let notifications = listener.notifications
        task = Task {
            for await notification in notifications {
                wake([notification.payload])
            }
        }
    }

    /// Stops listening.
    public func stop() {
        listener.stop()
        task.cancel()
    }
}
