import CSanitizerHooks
import Foundation

/// How much longer than usual this test process may take to do anything: 1 normally, more in a
/// build with a sanitizer, which runs every instrumented instruction several times slower.
///
/// Deadlines that guard against a hang (a receive timeout, how long to wait for a push, a client's
/// request timeout) go through it, so a sanitizer run fails on hangs, not on its own slowdown:
/// ``eventually(timeout:_:)``, ``LoopbackSocket`` and ``RawHTTPConnection`` scale theirs, and test
/// fixtures scale the clients' request timeouts. Bounds a test asserts as the property it tests
/// (a refusal within 400 ms, a rate) are not scaled.
///
/// ```swift
/// import StratusClient
///
/// let socket = try LoopbackSocket(port: port, timeout: 10)      // 10 s, scaled inside
/// var configuration = ClientConfiguration()
/// configuration.requestTimeout = TestTimeScale.scaled(.seconds(20))
/// ```
///
/// `STRATUS_TEST_TIME_SCALE` (a positive number) overrides the factor; otherwise it is 1, 4 under
/// AddressSanitizer and 10 under ThreadSanitizer (measured: TSan runs the suite about 5–15 times
/// slower on two loaded cores).
public enum TestTimeScale {
    /// The factor deadlines are multiplied by.
    public static let factor: Double = {
        if let text = ProcessInfo.processInfo.environment["STRATUS_TEST_TIME_SCALE"], let value = Double(text), value > 0 {
            return value
        }
        let sanitizers = stratus_sanitizers()
        if sanitizers & STRATUS_SANITIZER_THREAD != 0 { return 10 }
        if sanitizers & STRATUS_SANITIZER_ADDRESS != 0 { return 4 }
        return 1
    }()

    /// Whether this process runs slower than usual (a sanitizer, or a factor set by hand).
    public static var isSlowed: Bool { factor > 1 }

    /// `duration` times ``factor``.
    ///
    /// - Parameter duration: The deadline on an ordinary build.
    /// - Returns: The deadline for this build.
    public static func scaled(_ duration: Duration) -> Duration {
        factor == 1 ? duration : duration * factor
    }

    /// `seconds` times ``factor``, rounded up: for socket timeouts given in whole seconds.
    ///
    /// - Parameter seconds: The timeout on an ordinary build; 0 (no timeout) stays 0.
    /// - Returns: The timeout for this build.
    public static func scaled(seconds: Int) -> Int {
        factor == 1 ? seconds : Int((Double(seconds) * factor).rounded(.up))
    }
}
