import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM, so a server can shut down gracefully.
///
/// ```swift
/// let signal = await TerminationSignal.wait()
/// logger.info("received signal \(signal)")
/// await server.shutdown()
/// ```
public enum TerminationSignal {
    /// Suspends until the process receives SIGINT or SIGTERM, and returns which.
    ///
    /// The default actions of both signals are turned off for the rest of the
    /// process's life; SIGPIPE is ignored too, so a closed socket never kills it.
    public static func wait() async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "stratus.signals")
        return await withCheckedContinuation { continuation in
            let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
                signal(number, SIG_IGN)
                return DispatchSource.makeSignalSource(signal: number, queue: queue)
            }
            let box = SignalSources(sources: sources, continuation: continuation)
            for (number, source) in zip([SIGINT, SIGTERM], sources) {
                source.setEventHandler { box.fire(number) }
                source.resume()
            }
        }
    }
}

/// Holds the signal sources until one fires, then cancels them all.
// Safety: every member is touched only on the one serial signal queue.
private final class SignalSources: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal]
    private var continuation: CheckedContinuation<Int32, Never>?

    init(sources: [any DispatchSourceSignal], continuation: CheckedContinuation<Int32, Never>) {
        self.sources = sources
        self.continuation = continuation
    }

    func fire(_ number: Int32) {
        continuation?.resume(returning: number)
        continuation = nil
        sources.forEach { $0.cancel() }
        sources = []
    }
}
