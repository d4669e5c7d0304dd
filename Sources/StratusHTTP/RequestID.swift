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
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            func put(_ value: UInt64, digits: Int) {
                var shift = (digits - 1) * 4
                while shift >= 0 {
                    buffer[position] = hexDigits[Int((value >> UInt64(shift)) & 0xF)]
                    position += 1
                    shift -= 4
                }
            }
            func dash() {
                buffer[position] = UInt8(ascii: "-")
                position += 1
            }
            put(prefix >> 32, digits: 8)
            dash()
            put((prefix >> 16) & 0xFFFF, digits: 4)
            dash()
            put(prefix & 0xFFFF, digits: 4)
            dash()
            put(count >> 48, digits: 4)
            dash()
            put(count & 0xFFFF_FFFF_FFFF, digits: 12)
            return position
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
