/// What an APNs device token looks like on the wire: the bytes `registerForRemoteNotifications` gave
/// the app, in hexadecimal (32 bytes today; Apple allows for longer ones, up to 100).
///
/// Web courier tokens are 43 base64url characters, so the two never look alike.
public enum APNsDeviceTokenFormat {
    /// The token in lowercase hexadecimal, or `nil` when `text` is not 32 to 100 bytes of hex.
    ///
    /// - Parameter text: The `apnsToken` of a `tokens/register` request.
    /// - Returns: The normalized token.
    public static func normalized(_ text: String) -> String? {
        let count = text.utf8.count
        guard count >= 64, count <= 200, count % 2 == 0, text.utf8.allSatisfy({ $0 < 0x80 && ($0 as UInt8).isHexDigit }) else { return nil }
        return text.lowercased()
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
