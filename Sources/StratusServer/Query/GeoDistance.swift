import Foundation

/// Great-circle distances and bounding boxes for `NEAR` filters and distance sorts.
///
/// Every back end measures the same way: the haversine formula on a sphere of
/// radius ``earthRadius`` (the mean Earth radius), in meters. A back end first
/// narrows candidates with ``BoundingBox`` on its latitude/longitude index, then
/// keeps those whose exact distance is at most the radius.
public enum GeoDistance {
    /// The mean Earth radius in meters (IUGG).
    public static let earthRadius = 6_371_008.8

    /// The haversine distance in meters between two points given in degrees.
    ///
    /// - Parameters:
    ///   - latitude1: First point's latitude.
    ///   - longitude1: First point's longitude.
    ///   - latitude2: Second point's latitude.
    ///   - longitude2: Second point's longitude.
    /// - Returns: Meters along the sphere.
    public static func meters(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (latitude2 - latitude1) * radians
        let dLng = (longitude2 - longitude1) * radians
        let a = pow(sin(dLat / 2), 2) + cos(latitude1 * radians) * cos(latitude2 * radians) * pow(sin(dLng / 2), 2)
        return 2 * earthRadius * asin(min(1, sqrt(a)))
    }

    /// A latitude/longitude box that contains every point within a radius of a centre.
    public struct BoundingBox: Hashable, Sendable {
        /// Southern edge in degrees (at least -90).
        public var minimumLatitude: Double
        /// Northern edge in degrees (at most 90).
        public var maximumLatitude: Double
        /// Western edge in degrees; greater than ``maximumLongitude`` when the box crosses the antimeridian.
        public var minimumLongitude: Double
        /// Eastern edge in degrees.
        public var maximumLongitude: Double
        /// Whether every longitude is inside (the circle reaches a pole or spans the globe).
        public var allLongitudes: Bool

        /// Whether the box wraps around ±180°: longitudes from ``minimumLongitude`` to 180 and from -180 to ``maximumLongitude``.
        public var crossesAntimeridian: Bool { !allLongitudes && minimumLongitude > maximumLongitude }

        /// The box around the circle of `meters` around (`latitude`, `longitude`).
        ///
        /// - Parameters:
        ///   - latitude: Centre latitude in degrees.
        ///   - longitude: Centre longitude in degrees.
        ///   - meters: Radius in meters (not negative).
        public init(latitude: Double, longitude: Double, meters: Double) {
            // A hair of slack (about 1 cm) so rounding never drops a point the exact distance keeps.
            let angular = meters / GeoDistance.earthRadius * 180 / .pi + 1e-7
            minimumLatitude = max(-90, latitude - angular)
            maximumLatitude = min(90, latitude + angular)
            let polar = latitude + angular >= 90 || latitude - angular <= -90
            // The widest longitude span of a spherical cap: asin(sin r / cos φ) (Chamberlain, "Finding points within a distance").
            let ratio = sin(meters / GeoDistance.earthRadius) / cos(latitude * .pi / 180)
            let spread = ratio >= 1 || meters / GeoDistance.earthRadius >= .pi / 2 ? 360 : asin(ratio) * 180 / .pi + 1e-7
            if polar || spread >= 180 {
                allLongitudes = true
                minimumLongitude = -180
                maximumLongitude = 180
            } else {
                allLongitudes = false
                minimumLongitude = Self.wrap(longitude - spread)
                maximumLongitude = Self.wrap(longitude + spread)
            }
        }

        private static func wrap(_ longitude: Double) -> Double {
            var value = longitude
            while value > 180 { value -= 360 }
            while value < -180 { value += 360 }
            return value
        }
    }
}
