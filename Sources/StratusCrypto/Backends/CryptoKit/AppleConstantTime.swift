#if canImport(CryptoKit)
import Foundation

/// Constant-time comparison on Apple platforms: the side of ``ConstantTime`` without OpenSSL.
///
/// Every byte is visited and differences are folded with `|`, so the running time depends on the
/// length only, never on where the inputs differ.
enum ConstantTimeBackend {
    /// Whether two byte strings of any lengths are equal; equal lengths are compared in constant time.
    static func isEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
#endif
