/// One push as the web courier delivers it (and as APNs carries it): `{"aps": {…}, "ck": {…}}`.
///
/// ```json
/// {"aps":{"alert":"New note"},
///  "ck":{"ce":2,"cid":"iCloud.com.example.App","ckuserid":"_aca0fa…","nid":"c17cf8c1-…","aux":{},
///        "qry":{"sid":"sub-1","rid":"B61C8113-…","fo":1,"zid":"_defaultZone","zoid":"_aca0fa…","dbs":1}}}
/// ```
///
/// Documentation/0007-push-and-assets.md, “The web courier” (not documented by Apple; shape from live observation).
public struct CourierNotification: Hashable, Sendable, Codable {
    /// The standard APNs dictionary; absent when the subscription has no notification info.
    public var aps: APS?
    /// The CloudKit part.
    public var ck: CK

    /// Creates a notification.
    ///
    /// - Parameters:
    ///   - aps: The APNs dictionary.
    ///   - ck: The CloudKit part.
    public init(aps: APS? = nil, ck: CK) {
        self.aps = aps
        self.ck = ck
    }

    /// The APNs `aps` dictionary.
    public struct APS: Hashable, Sendable, Codable {
        /// The alert: a string or a dictionary.
        public var alert: Alert?
        /// The badge number.
        public var badge: Int?
        /// The sound file name.
        public var sound: String?
        /// The notification category.
        public var category: String?
        /// `1` when `shouldSendContentAvailable` was set.
        public var contentAvailable: Int?

        private enum CodingKeys: String, CodingKey {
            case alert, badge, sound, category
            case contentAvailable = "content-available"
        }

        /// Creates an `aps` dictionary.
        ///
        /// - Parameters:
        ///   - alert: The alert.
        ///   - badge: The badge number.
        ///   - sound: The sound file name.
        ///   - category: The notification category.
        ///   - contentAvailable: `1` for a background push.
        public init(alert: Alert? = nil, badge: Int? = nil, sound: String? = nil, category: String? = nil, contentAvailable: Int? = nil) {
            self.alert = alert
            self.badge = badge
            self.sound = sound
            self.category = category
            self.contentAvailable = contentAvailable
        }
    }

    /// The `aps.alert` value: plain text or a localizable dictionary.
    public enum Alert: Hashable, Sendable, Codable {
        /// `"alert": "text"`.
        case text(String)
        /// `"alert": {"body": …, "loc-key": …, …}`.
        case dictionary(AlertDictionary)

        /// Decodes a string or a dictionary.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: `DecodingError` naming the path if it is neither.
        public init(from decoder: any Decoder) throws {
            if case .string(let text) = try JSONValue(from: decoder) {
                self = .text(text)
            } else {
                self = .dictionary(try AlertDictionary(from: decoder))
            }
        }

        /// Encodes the string or the dictionary.
        ///
        /// - Parameter encoder: The encoder to write to.
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .text(let text):
                var container = encoder.singleValueContainer()
                try container.encode(text)
            case .dictionary(let dictionary): try dictionary.encode(to: encoder)
            }
        }
    }

    /// The dictionary form of `aps.alert`.
    public struct AlertDictionary: Hashable, Sendable, Codable {
        /// The alert text.
        public var body: String?
        /// A localization key.
        public var locKey: String?
        /// Localization arguments.
        public var locArgs: [String]?
        /// A localization key for the action button.
        public var actionLocKey: String?
        /// The launch image.
        public var launchImage: String?

        private enum CodingKeys: String, CodingKey {
            case body
            case locKey = "loc-key"
            case locArgs = "loc-args"
            case actionLocKey = "action-loc-key"
            case launchImage = "launch-image"
        }

        /// Creates an alert dictionary.
        ///
        /// - Parameters:
        ///   - body: The alert text.
        ///   - locKey: A localization key.
        ///   - locArgs: Localization arguments.
        ///   - actionLocKey: A localization key for the action button.
        ///   - launchImage: The launch image.
        public init(
            body: String? = nil, locKey: String? = nil, locArgs: [String]? = nil, actionLocKey: String? = nil,
            launchImage: String? = nil
        ) {
            self.body = body
            self.locKey = locKey
            self.locArgs = locArgs
            self.actionLocKey = actionLocKey
            self.launchImage = launchImage
        }
    }
}
