import CFuzzerDriver
import Foundation

/// The entry point of every fuzz target: hands the command line and the target's function to
/// libFuzzer's driver.
///
/// SwiftPM renames an executable's `main` when testable imports are enabled (the fuzz build needs
/// them), so libFuzzer's own `main` would never run; each target's `@main` calls this instead.
///
/// ```swift
/// @main enum Main { static func main() { FuzzDriver.run(fuzzJSON) } }
/// ```
public enum FuzzDriver {
    /// Runs libFuzzer with the process's arguments and exits with its status.
    ///
    /// - Parameter target: The function libFuzzer calls with each input.
    public static func run(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, target))
    }
}
