import Foundation
import StratusServer
import StratusServerSQL
import StratusWire
import Testing

/// `SchemaMemo` reuses a decoded schema only for the very bytes it decoded: a changed schema (another
/// node's deployment, a rolled-back one) is decoded again, never served stale.
@Suite struct SchemaMemoTests {
    @Test func onlyIdenticalBytesReuseTheDecodedSchema() throws {
        let memo = SchemaMemo()
        let empty = try JSONEncoder().encode(Schema())
        let notes = try JSONEncoder().encode(Schema(recordTypes: ["Note": RecordTypeSchema(fields: ["title": FieldSchema(type: .string)])]))
        #expect(try memo.schema(decoding: empty) == Schema())
        #expect(try memo.schema(decoding: notes).recordTypes["Note"]?.fields["title"]?.type == .string)
        #expect(try memo.schema(decoding: notes).recordTypes.count == 1)
        #expect(try memo.schema(decoding: empty) == Schema())
        #expect(throws: DecodingError.self) { try memo.schema(decoding: Data("{".utf8)) }
        #expect(try memo.schema(decoding: empty) == Schema())
    }
}
