/// The transport the SDK sends with when it is given none: ``CurlTransport`` on Linux (libcurl
/// without `URLSession`), ``URLSessionTransport`` on Apple platforms.
///
/// ```swift
/// let network = SwitchableTransport(DefaultTransport.make())
/// ```
public enum DefaultTransport {
    /// A new transport of the platform's kind, with connections of its own.
    ///
    /// - Returns: The transport.
    public static func make() -> any HTTPTransport {
        #if os(Linux)
        CurlTransport()
        #else
        URLSessionTransport()
        #endif
    }
}
