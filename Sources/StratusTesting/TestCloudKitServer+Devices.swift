public import Foundation
public import StratusClient
import StratusWire

extension TestCloudKitServer {
    /// The server's manual clock as a device clock: history timestamps and the devices' edit times on
    /// one timeline, so "the latest change" means the same on every simulated device.
    public var deviceClock: @Sendable () -> Date {
        let clock = clock
        return { Date(timeIntervalSince1970: Double(clock.now()) / 1000) }
    }

    /// A container of the test container in open mode, as a simulated device talks to this server:
    /// through `transport` (a device's own network switch), with a generous request timeout for a
    /// loaded machine, no waits between retries and at most two attempts.
    ///
    /// ```swift
    /// import StratusClient
    ///
    /// let network = SwitchableTransport(URLSessionTransport())
    /// let container = server.deviceContainer(transport: network)
    /// network.isOffline = true  // the device goes offline
    /// ```
    ///
    /// - Parameter transport: The device's transport.
    /// - Returns: The container.
    public func deviceContainer(transport: any HTTPTransport) -> Container {
        var client = ClientConfiguration()
        client.requestTimeout = TestTimeScale.scaled(.seconds(20))
        client.sleep = { _ in }
        client.retryPolicy.maximumAttempts = 2
        return Container(
            identifier: Self.container, environment: .development, serverURL: http.url(""), authentication: .none, configuration: client,
            transport: transport)
    }
}
