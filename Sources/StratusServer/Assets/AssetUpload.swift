import Foundation
import StratusCrypto
import StratusHTTP
import StratusWire
import Synchronization

/// An asset upload written to disk as it arrives: a temporary file (mode 0600) in the blob
/// store's upload directory, hashed as it goes and cut off at its limit, so an upload costs
/// the server a file, not its size in memory.
///
/// The transport writes the body into it (``HTTPBodySink``); the upload handler then
/// ``take()``s the finished file and hands it to the content-addressed store. Whatever was not
/// taken is removed when the request ends, and `onAbandon` runs (the upload URL may be used again).
///
/// ```swift
/// let upload = try AssetUpload(directory: files.uploadDirectory, ticket: ticket, limit: 50 << 20, limitError: .bodyTooLarge(limit: 50 << 20)) {
///     ledger.release(ticket.n)
/// }
/// ```
final class AssetUpload: HTTPBodySink {
    /// A finished upload: where its bytes are, its content key and size.
    struct File: Sendable {
        var url: URL
        var key: String
        var size: Int64
    }

    private enum Phase {
        case writing(descriptor: Int32)
        case finished
        case taken
        case closed
    }

    private struct State {
        var phase: Phase
        var hasher = SHA256()
        var size = 0
    }

    let url: URL
    /// The upload URL's ticket.
    let ticket: AssetUploadTicket
    /// The most bytes accepted.
    let limit: Int
    private let limitError: HTTPError
    private let onAbandon: @Sendable () -> Void
    private let state: Mutex<State>

    /// Creates the temporary file.
    ///
    /// - Parameters:
    ///   - directory: Where to write it (``AssetBlobStore/uploadDirectory``).
    ///   - ticket: The upload URL's ticket.
    ///   - limit: The most bytes accepted.
    ///   - limitError: The answer to a body over `limit`.
    ///   - onAbandon: Runs once if the upload ends without being taken.
    /// - Throws: ``ServiceError`` when the file cannot be created.
    init(
        directory: URL, ticket: AssetUploadTicket, limit: Int, limitError: HTTPError, onAbandon: @escaping @Sendable () -> Void
    ) throws(ServiceError) {
        let url = directory.appendingPathComponent("upload-" + UUID().uuidString)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ServiceError(.internalError, "the server cannot store uploads right now")
        }
        self.url = url
        self.ticket = ticket
        self.limit = limit
        self.limitError = limitError
        self.onAbandon = onAbandon
        self.state = Mutex(State(phase: .writing(descriptor: descriptor)))
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) {
        try state.withLock { state throws(HTTPError) in
            guard case .writing(let descriptor) = state.phase else { return }
            guard state.size + bytes.count <= limit else { throw limitError }
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress.unsafelyUnwrapped + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw HTTPError.internalError
                }
                offset += written
            }
            state.hasher.update(bytes)
            state.size += bytes.count
        }
    }

    func finish() throws(HTTPError) {
        try state.withLock { state throws(HTTPError) in
            guard case .writing(let descriptor) = state.phase else { return }
            state.phase = .finished
            guard Foundation.close(descriptor) == 0 else { throw HTTPError.internalError }
        }
    }

    /// Writes a whole body that arrived in memory (a request the transport did not stream) and finishes.
    func finish(writing body: Data) throws(HTTPError) {
        var failure: HTTPError?
        body.withUnsafeBytes { bytes in
            do throws(HTTPError) { try write(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
        try finish()
    }

    /// The finished file, which the caller now owns; `nil` unless the body arrived whole.
    func take() -> File? {
        state.withLock { state -> File? in
            guard case .finished = state.phase else { return nil }
            state.phase = .taken
            return File(url: url, key: AssetChecksum.key(of: state.hasher.finalize()), size: Int64(state.size))
        }
    }

    func close() {
        let abandoned = state.withLock { state -> Bool in
            switch state.phase {
            case .writing(let descriptor):
                Foundation.close(descriptor)
            case .finished:
                break
            case .taken, .closed:
                return false
            }
            state.phase = .closed
            return true
        }
        guard abandoned else { return }
        unlink(url.path)
        onAbandon()
    }
}
