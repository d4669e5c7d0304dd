/// Text order both back ends' queries use: code-point order (SQLite compares TEXT by its UTF-8
/// bytes, which orders like code points; PostgreSQL's `field_index` text is `COLLATE "C"`).
public enum SQLTextOrder {
    /// The least string greater than every string that begins with `prefix`, or `nil` if there is none,
    /// so that `[prefix, successor)` is exactly the strings that begin with `prefix`.
    ///
    /// ```swift
    /// SQLTextOrder.prefixUpperBound("ab")  // "ac"
    /// ```
    ///
    /// - Parameter prefix: The prefix of a `BEGINS_WITH` filter.
    /// - Returns: The exclusive upper bound, or `nil` when every larger string begins with `prefix`.
    public static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars)
                view.append(scalar)
                return String(view)
            }
        }
        return nil
    }
}
