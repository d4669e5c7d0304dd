#if canImport(COpenSSL) && !canImport(CryptoKit)
internal import COpenSSL

/// Reads and clears OpenSSL's per-thread error queue.
///
/// OpenSSL reports failures by pushing entries onto a thread-local queue. Every
/// call that can fail is bracketed: the queue is cleared before the call so
/// stale entries from unrelated work don't leak into our error, and drained
/// after a failure so the next caller on this thread starts clean.
package enum OpenSSLErrorQueue {
    /// Discards everything in the queue.
    package static func clear() {
        ERR_clear_error()
    }

    /// Removes every entry from the queue and returns their text, oldest first.
    package static func drain() -> [String] {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            // > ERR_error_string_n() ... buf must be at least 256 bytes long.
            var buffer = [CChar](repeating: 0, count: 256)
            let text = buffer.withUnsafeMutableBufferPointer { pointer -> String in
                guard let base = pointer.baseAddress else { return "" }
                ERR_error_string_n(code, base, pointer.count)
                return String(cString: base)
            }
            lines.append(text)
        }
        return lines
    }

    /// Builds a ``CryptoError`` that carries the drained queue.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence naming the problem.
    /// - Returns: The error, with the queue's text in ``CryptoError/openSSLErrors``.
    package static func error(_ code: CryptoError.Code, _ message: String) -> CryptoError {
        CryptoError(code: code, message: message, openSSLErrors: drain())
    }
}
#endif
