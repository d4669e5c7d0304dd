import Dispatch
import Foundation

/// Calls an action each time the process receives SIGHUP — the operator's "re-read your files".
///
/// SIGHUP's default action (ending the process) is turned off while the observer lives.
///
/// ```swift
/// let reload = ReloadSignal { try? server.reloadTLS(TLSIdentity(certificateFile: certificate, keyFile: key)) }
/// defer { reload.cancel() }
/// ```
// Safety: the source is set once in init; DispatchSource's cancel is safe from any thread.
public final class ReloadSignal: @unchecked Sendable {
    private let source: any DispatchSourceSignal

    /// Starts observing SIGHUP; `action` runs on a serial queue of its own, one signal at a time.
    public init(_ action: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "stratus.reload"))
        source.setEventHandler(handler: action)
        source.resume()
    }

    /// Stops observing; later SIGHUPs are ignored.
    public func cancel() {
        source.cancel()
    }
}
