/// A geographic location: the Location dictionary.
///
/// `timestamp` must be whole milliseconds, like every TIMESTAMP.
///
/// CloudKit reference: Types ("Location Dictionary"); Apple's CloudKit Web Services Reference: “Location dictionary”.
public struct Location: Hashable, Sendable, Codable {
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double
    /// Horizontal accuracy in meters.
    public var horizontalAccuracy: Double?
    /// Vertical accuracy in meters.
    public var verticalAccuracy: Double?
    /// Altitude in meters.
    public var altitude: Double?
    /// Speed in meters per second.
    public var speed: Double?
    /// Course in degrees.
    public var course: Double?
    /// When the location was determined.
    public var timestamp: Timestamp?

    /// Creates a location.
    ///
    /// - Parameters:
    ///   - latitude: Latitude in degrees.
    ///   - longitude: Longitude in degrees.
    ///   - horizontalAccuracy: Horizontal accuracy in meters.
    ///   - verticalAccuracy: Vertical accuracy in meters.
    ///   - altitude: Altitude in meters.
    ///   - speed: Speed in meters per second.
    ///   - course: Course in degrees.
    ///   - timestamp: When the location was determined.
    public init(
        latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
        altitude: Double? = nil, speed: Double? = nil, course: Double? = nil, timestamp: Timestamp? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }
}
