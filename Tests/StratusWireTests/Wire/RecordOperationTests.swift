import StratusWire
import Testing

@Suite struct RecordOperationTests {
    /// Factories write exactly the keys each operation needs.
    @Test func factoriesWriteTheWireShape() throws {
        let update = RecordOperation.update(Record(recordName: "t0", fields: ["done": .int64(1)]), expecting: "1e")
        #expect(
            try WireCoding.encodeJSON(update) == [
                "operationType": "update",
                "record": ["recordName": "t0", "recordChangeTag": "1e", "fields": ["done": ["type": "INT64", "value": 1]]],
            ])
        let delete = RecordOperation.delete(RecordID(recordName: "t5"), expecting: "3a")
        #expect(
            try WireCoding.encodeJSON(delete) == [
                "operationType": "delete", "record": ["recordName": "t5", "recordChangeTag": "3a"],
            ])
        #expect(
            try WireCoding.encodeJSON(RecordOperation.forceDelete(RecordID(recordName: "t9")))
                == ["operationType": "forceDelete", "record": ["recordName": "t9"]])
    }

    /// The validating initializer rejects an update without a change tag and a create without a type.
    @Test func validatingInitializerRejectsIncompleteOperations() {
        expectWireError(.invalidOperation) {
            try RecordOperation(operationType: .update, record: Record(recordName: "a"))
        }
        expectWireError(.invalidOperation) {
            try RecordOperation(operationType: .create, record: Record(recordName: "a"))
        }
        expectWireError(.invalidOperation) {
            try RecordOperation(operationType: .forceDelete, record: Record())
        }
    }

    /// Intents resolve delete IDs against the request zone unless the record carries its own.
    @Test func intentUsesTheRequestZone() throws {
        let zone = ZoneID(zoneName: "Projects")
        let operation = try RecordOperation(operationType: .forceDelete, record: Record(recordName: "x"))
        #expect(operation.intent(in: zone) == .forceDelete(RecordID(recordName: "x", zoneID: zone)))
        let own = try RecordOperation(
            operationType: .forceDelete, record: Record(recordName: "x", zoneID: ZoneID(zoneName: "Other")))
        #expect(own.intent(in: zone) == .forceDelete(RecordID(recordName: "x", zoneID: ZoneID(zoneName: "Other"))))
    }

    /// Only update, replace and delete check the change tag.
    @Test func onlyNonForcedOperationsCheckTags() {
        let checking = RecordOperation.OperationType.allCases.filter(\.checksChangeTag)
        #expect(checking == [.update, .replace, .delete])
    }
}
