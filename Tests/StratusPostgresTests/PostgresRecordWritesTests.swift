import Foundation
import StratusPostgres
import StratusServer
@testable import StratusServerPostgres
import StratusWire
import Testing

/// The buffer of a write transaction's record writes under savepoints (`mark`, `release`,
/// `rollBack(to:)`): a rolled-back savepoint leaves exactly what was buffered when it opened.
@Suite struct PostgresRecordWritesTests {
    static func record(_ name: String, sequence: Int64) -> StoredRecord {
        let stamp = StoredRecord.Stamp(timestamp: 1, userRecordName: "_owner", deviceID: "d")
        return StoredRecord(
            zoneRowID: 1, recordName: name, recordType: "Note", changeTag: "t\(sequence)", fields: ["n": .int64(sequence)], created: stamp,
            modified: stamp, changeSequence: sequence
        )
    }

    /// The names the rendering upserts (the records statement's second array, as a literal).
    static func upserted(_ statements: [PostgresStatement]) -> String? {
        statements.first { $0.sql.contains("INSERT INTO records") }?.parameters[1].postgresText
    }

    static func put(_ name: String, _ sequence: Int64, into writes: inout PostgresRecordWrites) {
        writes.put(record(name, sequence: sequence), body: Data(), references: [], isNew: true)
    }

    @Test func aRolledBackSavepointBuffersAgainWhatWasBufferedWhenItOpened() {
        var writes = PostgresRecordWrites()
        Self.put("a", 1, into: &writes)
        let outer = writes.mark()
        Self.put("b", 2, into: &writes)
        let inner = writes.mark()
        Self.put("c", 3, into: &writes)
        #expect(Self.upserted(writes.take()) == #"{"a","b","c"}"#)  // went out inside both savepoints
        writes.release(inner)
        Self.put("d", 4, into: &writes)
        #expect(writes.count == 1)
        writes.rollBack(to: outer)
        // a was buffered when the outer savepoint opened (and its rendering was undone with it); b, c, d are gone.
        #expect(writes.count == 1 && writes.contains(named: "a", inZone: 1) && !writes.contains(named: "d", inZone: 1))
        #expect(Self.upserted(writes.take()) == #"{"a"}"#)
        #expect(writes.take().isEmpty)
    }

    @Test func aReleasedSavepointKeepsItsWritesAndTakenOnesAreNotSentTwice() {
        var writes = PostgresRecordWrites()
        for index in 0..<3 {
            let mark = writes.mark()
            Self.put("r\(index)", Int64(index), into: &writes)
            writes.release(mark)
        }
        #expect(Self.upserted(writes.take()) == #"{"r0","r1","r2"}"#)
        let mark = writes.mark()
        Self.put("r3", 3, into: &writes)
        writes.rollBack(to: mark)  // nothing was buffered when it opened
        #expect(writes.take().isEmpty)
        Self.put("r4", 4, into: &writes)
        #expect(Self.upserted(writes.take()) == #"{"r4"}"#)
    }
}
