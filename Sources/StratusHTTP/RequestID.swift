import Synchronization

/// Makes request IDs: UUID-shaped, unique within the process and across restarts, and cheap.
///
/// The first half is random per process, the second a counter, so making one
/// costs no system call (`UUID()` reads the kernel's random source every time).
public enum RequestID {
    private static let prefix: UInt64 = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// The next ID, such as `5D2C41A0-9B7E-13F4-0000-00000000002A`.
    public static func next() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        let hex = hex16(prefix) + hex16(count)
        var out = ""
        out.reserveCapacity(36)
        for (index, character) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append("-") }
            out.append(character)
        }
        return out
    }

    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
