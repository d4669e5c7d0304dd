public import Foundation

/// What a fuzz target checks beyond "no crash": an invariant that must hold for every input.
///
/// A broken invariant prints what broke and the input's summary to standard error and traps, so
/// libFuzzer saves the input as a crash (`crash-…`) and stops.
///
/// ```swift
/// FuzzCheck.that(reparsed == parsed, "parse → write → parse changed the value", input)
/// ```
public enum FuzzCheck {
    /// Traps when `condition` is false.
    ///
    /// - Parameters:
    ///   - condition: The invariant.
    ///   - message: What the invariant promises, for the report.
    ///   - input: The input (shown escaped and cut to 400 bytes).
    public static func that(_ condition: Bool, _ message: @autoclosure () -> String, _ input: Data) {
        guard !condition else { return }
        fail(message(), input)
    }

    /// Prints the broken invariant and traps.
    ///
    /// - Parameters:
    ///   - message: What went wrong.
    ///   - input: The input that broke it.
    public static func fail(_ message: String, _ input: Data) -> Never {
        let shown = String(decoding: input.prefix(400), as: UTF8.self).debugDescription
        FileHandle.standardError.write(Data("fuzz invariant broken: \(message)\n  input (\(input.count) bytes): \(shown)\n".utf8))
        fatalError(message)
    }
}

/// The input of one fuzz run, as libFuzzer passes it to `LLVMFuzzerTestOneInput`.
public enum FuzzInput {
    /// Copies libFuzzer's buffer into `Data`.
    ///
    /// - Parameters:
    ///   - bytes: The buffer (may be `nil` when `count` is 0).
    ///   - count: Its length.
    /// - Returns: The bytes.
    public static func data(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let bytes, count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
