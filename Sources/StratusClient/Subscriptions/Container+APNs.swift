public import Foundation
public import StratusWire

extension Container {
    /// Registers this device's APNs device token, so the signed-in user's subscriptions wake it with
    /// a push through Apple's push service (`tokens/register`).
    ///
    /// Pass what `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)` gave the app,
    /// and the APNs environment the app was signed for (`aps-environment`: `development` for builds
    /// from Xcode, `production` for TestFlight and the App Store). Call it on every launch: the
    /// server keeps the latest registrations (a few per user) and forgets a token APNs calls invalid.
    /// A device whose token another user registered before moves to the signed-in user. The server
    /// sends pushes once its operator has set the container's APNs credentials.
    ///
    /// ```swift
    /// // In the app delegate's application(_:didRegisterForRemoteNotificationsWithDeviceToken:):
    /// Task { try await container.registerAPNsDeviceToken(deviceToken, environment: .production) }
    /// ```
    ///
    /// - Parameters:
    ///   - deviceToken: The token's bytes (32 today; up to 100).
    ///   - environment: The APNs environment the token belongs to.
    /// - Throws: ``StratusError`` with ``StratusError/Code/invalidArguments`` for a token of the wrong
    ///   size, ``StratusError/Code/notAuthenticated`` without a signed-in user, or what the server answers.
    public func registerAPNsDeviceToken(_ deviceToken: Data, environment: APNsEnvironment) async throws {
        guard (32...100).contains(deviceToken.count) else {
            throw StratusError(.invalidArguments, "an APNs device token has 32 to 100 bytes; got \(deviceToken.count)")
        }
        let hex = deviceToken.map { String(format: "%02x", $0) }.joined()
        _ = try await client.send(
            TokensRegister.self, TokensRegister.Request(apnsEnvironment: environment, apnsToken: hex), database: .private, idempotent: true
        )
    }
}

extension CloudNotification {
    /// Decodes the `userInfo` of a push the app received from APNs
    /// (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`), the `{aps, ck}`
    /// dictionary the server sent.
    ///
    /// ```swift
    /// let notification = try CloudNotification(userInfo: userInfo)
    /// if notification.kind == .recordZone, let zoneID = notification.zoneID {
    ///     try await fetchChanges(zoneID)  // the zone's changes since the last change token
    /// }
    /// ```
    ///
    /// - Parameter userInfo: The push's dictionary.
    /// - Throws: ``StratusError`` with ``StratusError/Code/invalidArguments`` when it is not a
    ///   CloudKit notification (no `ck` dictionary, values that are not JSON), naming the problem.
    public init(userInfo: [AnyHashable: Any]) throws {
        var dictionary: [String: Any] = [:]
        for (key, value) in userInfo {
            guard let name = key as? String else { continue }
            dictionary[name] = value
        }
        guard dictionary["ck"] is [AnyHashable: Any] else {
            throw StratusError(.invalidArguments, "this push is not a CloudKit notification: its userInfo has no 'ck' dictionary")
        }
        guard JSONSerialization.isValidJSONObject(dictionary), let data = try? JSONSerialization.data(withJSONObject: dictionary) else {
            throw StratusError(.invalidArguments, "this push's userInfo holds values that are not JSON")
        }
        do {
            self.init(payload: try WireCoding.decode(CourierNotification.self, from: data))
        } catch {
            throw StratusError(.invalidArguments, "this push's CloudKit notification could not be decoded: \(error)")
        }
    }
}
