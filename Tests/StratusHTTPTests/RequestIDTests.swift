import StratusHTTP
import Testing

@Suite struct RequestIDTests {
    /// Request IDs are UUID-shaped and never repeat.
    @Test func requestIDsAreUUIDShapedAndUnique() {
        let ids = (0..<10_000).map { _ in RequestID.next() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(3) {
            let groups = id.split(separator: "-").map(\.count)
            #expect(groups == [8, 4, 4, 4, 12], "\(id)")
            #expect(id.allSatisfy { $0.isHexDigit || $0 == "-" })
        }
    }
}
