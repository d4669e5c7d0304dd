import Foundation

/// Compares attribute values as SQLite compares their stored forms, so in-memory and SQL evaluation agree.
enum ValueComparison {
    /// -1, 0 or 1 as `lhs` is smaller, equal or larger; `nil` for values that do not compare.
    static func compare(_ lhs: AttributeValue, _ rhs: AttributeValue) -> Int? {
        if let left = lhs.integerValue, let right = rhs.integerValue {
            return order(left, right)
        }
        if let left = lhs.numericValue, let right = rhs.numericValue {
            return order(left, right)
        }
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)): return bytes(left.utf8, right.utf8)
        case (.boolean(let left), .boolean(let right)): return order(left ? 1 : 0, right ? 1 : 0)
        case (.date(let left), .date(let right)): return order(left.timeIntervalSince1970, right.timeIntervalSince1970)
        case (.binaryData(let left), .binaryData(let right)): return bytes(left, right)
        case (.uuid(let left), .uuid(let right)):
            return withUnsafeBytes(of: left.uuid) { l in withUnsafeBytes(of: right.uuid) { r in bytes(l, r) } }
        case (.uri(let left), .uri(let right)): return bytes(left.absoluteString.utf8, right.absoluteString.utf8)
        case (.decimal(let left), .decimal(let right)): return left < right ? -1 : (left == right ? 0 : 1)
        default: return nil
        }
    }

    /// Compares optional values for sorting: `nil` first.
    static func sortOrder(_ lhs: AttributeValue?, _ rhs: AttributeValue?) -> Int {
        switch (lhs, rhs) {
        case (nil, nil): 0
        case (nil, _): -1
        case (_, nil): 1
        case (let left?, let right?): compare(left, right) ?? 0
        }
    }

    private static func order<T: Comparable>(_ lhs: T, _ rhs: T) -> Int {
        lhs < rhs ? -1 : (lhs == rhs ? 0 : 1)
    }

    private static func bytes(_ lhs: some Sequence<UInt8>, _ rhs: some Sequence<UInt8>) -> Int {
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let l?, let r?):
                if l != r { return l < r ? -1 : 1 }
            }
        }
    }

    /// Whether `text` matches `pattern` by `op`, as SQLite's `GLOB` (exact bytes) or `LIKE` (ASCII case folding) would,
    /// or with Foundation's folding when asked for diacritic insensitivity or a non-ASCII case-insensitive match.
    static func matches(
        _ text: String, _ op: FetchPredicate.StringOperator, _ pattern: String, _ options: StringComparisonOptions
    ) -> Bool {
        let asciiPattern = pattern.utf8.allSatisfy { $0 < 0x80 }
        if options.contains(.diacriticInsensitive) || (options.contains(.caseInsensitive) && !asciiPattern) {
            var compareOptions: String.CompareOptions = []
            if options.contains(.caseInsensitive) { compareOptions.insert(.caseInsensitive) }
            if options.contains(.diacriticInsensitive) { compareOptions.insert(.diacriticInsensitive) }
            if pattern.isEmpty { return true }
            switch op {
            case .beginsWith: compareOptions.insert(.anchored)
            case .endsWith: compareOptions.formUnion([.anchored, .backwards])
            case .contains: break
            }
            return text.range(of: pattern, options: compareOptions) != nil
        }
        let fold = options.contains(.caseInsensitive)
        let haystack = fold ? text.utf8.map(asciiLowercased) : Array(text.utf8)
        let needle = fold ? pattern.utf8.map(asciiLowercased) : Array(pattern.utf8)
        switch op {
        case .beginsWith: return haystack.starts(with: needle)
        case .endsWith: return haystack.reversed().starts(with: needle.reversed())
        case .contains:
            guard !needle.isEmpty else { return true }
            guard haystack.count >= needle.count else { return false }
            for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return true
            }
            return false
        }
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }
}

extension AttributeValue {
    /// The value of a number of any kind, as a double (not decimals, which do not mix with other numbers).
    var numericValue: Double? {
        switch self {
        case .integer16(let value): Double(value)
        case .integer32(let value): Double(value)
        case .integer64(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
