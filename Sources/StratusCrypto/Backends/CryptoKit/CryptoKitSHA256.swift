#if canImport(CryptoKit)
import CryptoKit
import Foundation

/// SHA-256 through CryptoKit: the Apple side of ``SHA256``, the same interface as the OpenSSL side.
///
/// `CryptoKit.SHA256` is a value, so copying a hasher part-way forks the state; ``finalize()``
/// finalizes a copy and leaves this state usable.
struct SHA256Backend: Sendable {
    private var state = CryptoKit.SHA256()

    /// An empty state.
    init() {}

    /// Adds bytes to the state.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        state.update(bufferPointer: bytes)
    }

    /// The digest of everything added so far; the state stays usable.
    func finalize() -> Data {
        let copy = state
        return Data(copy.finalize())
    }

    /// The digest of `data` in one call.
    static func hash(_ data: Data) -> Data {
        Data(CryptoKit.SHA256.hash(data: data))
    }
}
#endif
