import Foundation
import StratusTesting
import Testing

/// The test support's raw socket: closing it ends a receive blocked on another thread.
@Suite struct LoopbackSocketTests {
    /// A listener that never accepts: a connection to it is made (the backlog takes it), and a
    /// receive on it waits for the full receive timeout unless the socket is closed.
    @Test func closingEndsABlockedReceiveAtOnce() async throws {
        let listener = try LoopbackPort.bind(listening: 4)
        defer { close(listener.descriptor) }
        let socket = try LoopbackSocket(port: listener.port, timeout: 60)
        let started = ContinuousClock.now
        let receive = Task { try await socket.receiveUntilClosed() }
        try await Task.sleep(for: .milliseconds(200))  // the receive is blocked by now (or starts after close and fails)
        socket.close()
        let reply = try? await receive.value
        #expect(ContinuousClock.now - started < .seconds(20), "the receive waited for its timeout")
        #expect(reply.map { $0.raw.isEmpty } ?? true)
        // A call after close fails at once instead of using a descriptor number another socket may own.
        await #expect(throws: LoopbackSocket.Failure.self) { try await socket.send(Data("x".utf8)) }
    }
}
