/// How a subscription's push is presented: the Notification Info dictionary.
///
/// CloudKit reference: Types ("Notification Info Dictionary"); Apple's CloudKit Web Services Reference: “Subscription and notification-info dictionaries”.
public struct NotificationInfo: Hashable, Sendable, Codable {
    /// The alert text.
    public var alertBody: String?
    /// A localization key for the alert text.
    public var alertLocalizationKey: String?
    /// Format arguments for ``alertLocalizationKey`` (field names, natively).
    public var alertLocalizationArgs: [String]?
    /// A localization key for the action button.
    public var alertActionLocalizationKey: String?
    /// The launch image file name.
    public var alertLaunchImage: String?
    /// The sound file name.
    public var soundName: String?
    /// Whether to badge the app icon (default `false`).
    public var shouldBadge: Bool?
    /// Whether to send `content-available` (default `false`).
    public var shouldSendContentAvailable: Bool?
    /// Field names to include in the push (CloudKit JS).
    public var additionalFields: [String]?
    /// The notification category (CloudKit JS).
    public var category: String?

    /// Creates notification info; set the other properties as needed.
    ///
    /// - Parameters:
    ///   - alertBody: The alert text.
    ///   - soundName: The sound file name.
    ///   - shouldBadge: Whether to badge the app icon.
    ///   - shouldSendContentAvailable: Whether to send `content-available`.
    public init(
        alertBody: String? = nil, soundName: String? = nil, shouldBadge: Bool? = nil,
        shouldSendContentAvailable: Bool? = nil
    ) {
        self.alertBody = alertBody
        self.soundName = soundName
        self.shouldBadge = shouldBadge
        self.shouldSendContentAvailable = shouldSendContentAvailable
    }
}
