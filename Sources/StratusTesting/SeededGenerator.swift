/// A small deterministic random number generator (SplitMix64): property tests draw from it so that
/// a failing seed replays exactly.
///
/// ```swift
/// var random = SeededGenerator(seed: 42)
/// let step = Int.random(in: 0..<10, using: &random)
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    ///
    /// - Parameter seed: The seed.
    public init(seed: UInt64) { state = seed }

    /// The next number of the sequence.
    ///
    /// - Returns: 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
