import CLibPQ
import Foundation
public import StratusLogging
import Synchronization

/// A notification delivered by `NOTIFY` (or `pg_notify`).
public struct PostgresNotification: Sendable, Hashable {
    /// The channel it was sent on.
    public var channel: String
    /// The payload (empty when none was given).
    public var payload: String
    /// The process ID of the sending backend.
    public var senderPID: Int32
}

/// Listens on PostgreSQL channels with a dedicated connection and thread, delivering an `AsyncStream`.
///
/// The connection does nothing but `LISTEN`; its thread polls the socket and yields each
/// notification as it arrives. A lost connection is re-established (and every channel
/// listened to again) after a short pause; notifications sent while it was down are lost,
/// so use them as wake-ups and keep the data in tables.
///
/// ```swift
/// let listener = try PostgresNotificationListener(url: url, channels: ["stratus_push"])
/// for await notification in listener.notifications { wake(notification.payload) }
/// ```
public final class PostgresNotificationListener: Sendable {
    /// Notifications in arrival order; finishes after ``stop()``.
    public let notifications: AsyncStream<PostgresNotification>
    private let stopped = StopFlag()

    /// Connects, listens on `channels`, and starts the thread.
    ///
    /// - Parameters:
    ///   - url: A libpq connection string or `postgres://` URI.
    ///   - channels: Channel names (identifiers; quoted as such).
    ///   - logger: Where reconnections are logged.
    /// - Throws: ``PostgresError`` when the first connection fails.
    public init(url: String, channels: [String], logger: Logger = .disabled) throws {
        let listen = channels.map { "LISTEN \"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }
        let connection = try PostgresConnection(url: url, setup: listen, logger: logger)
        let (stream, continuation) = AsyncStream.makeStream(of: PostgresNotification.self)
        notifications = stream
        let box = ListenerConnection(connection)
        let thread = Thread { [stopped] in
            Self.run(box, stopped: stopped, continuation: continuation, logger: logger)
            continuation.finish()
        }
        thread.name = "stratus.postgres.listen"
        thread.start()
    }

    /// Asks the thread to stop; within a poll interval (0.1 s) it closes the connection and finishes the stream.
    ///
    /// Does not block, so it may be called from async code.
    public func stop() {
        stopped.flag.store(true, ordering: .releasing)
    }

    deinit {
        stop()
    }

    private static func run(
        _ box: ListenerConnection, stopped: StopFlag, continuation: AsyncStream<PostgresNotification>.Continuation, logger: Logger
    ) {
        let connection = box.connection
        while !stopped.flag.load(ordering: .acquiring) {
            if !connection.isConnected {
                do {
                    try connection.reconnect()
                } catch {
                    logger.warning("LISTEN connection lost; retrying", metadata: ["error": "\(error)"])
                    Thread.sleep(forTimeInterval: 0.5)
                    continue
                }
            }
            var descriptor = pollfd(fd: PQsocket(connection.handle), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            guard ready > 0 else { continue }
            if PQconsumeInput(connection.handle) != 1 {
                // The socket broke: the next loop reconnects.
                if connection.isConnected { PQreset(connection.handle) }
                continue
            }
            while let notification = PQnotifies(connection.handle) {
                let value = notification.pointee
                continuation.yield(
                    PostgresNotification(
                        channel: String(cString: value.relname), payload: value.extra.map { String(cString: $0) } ?? "",
                        senderPID: value.be_pid
                    )
                )
                PQfreemem(notification)
            }
        }
    }
}

/// Hands the listening connection to its thread.
// Safety: the connection is created in `init` and then used only by the listener thread.
private final class ListenerConnection: @unchecked Sendable {
    let connection: PostgresConnection
    init(_ connection: PostgresConnection) { self.connection = connection }
}

/// The listener's stop request, shared with its thread.
private final class StopFlag: Sendable {
    let flag = Atomic<Bool>(false)
}
