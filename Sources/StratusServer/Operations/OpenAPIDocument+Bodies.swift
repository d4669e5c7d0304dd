import StratusWire

extension OpenAPIDocument {
    /// The request body schema of a CloudKit operation: the main members of the common bodies, so
    /// generated requests (Schemathesis) reach the handlers; other members are allowed, and an
    /// operation without one here takes any JSON object.
    static func requestSchema(for operation: EndpointOperation) -> JSONValue {
        switch operation {
        case .recordsModify:
            recordsModifyBody
        case .recordsLookup:
            object(
                [
                    "records": array(object(["recordName": string], required: ["recordName"])), "zoneID": zoneID,
                    "desiredKeys": array(string),
                ], required: ["records"])
        case .recordsQuery:
            object(
                [
                    "query": object(
                        [
                            "recordType": string, "filterBy": array(filter),
                            "sortBy": array(object(["fieldName": string, "ascending": boolean])),
                        ], required: ["recordType"]), "zoneID": zoneID, "resultsLimit": integer, "continuationMarker": string,
                ], required: ["query"])
        case .recordsChanges, .changesZone:
            object([
                "zoneID": zoneID, "syncToken": string, "resultsLimit": integer,
                "zones": array(object(["zoneID": zoneID, "syncToken": string])),
            ])
        case .zonesModify:
            zonesModifyBody
        case .zonesLookup:
            object(["zones": array(zoneID)], required: ["zones"])
        case .zonesChanges, .changesDatabase:
            object(["syncToken": string, "resultsLimit": integer])
        case .subscriptionsModify:
            subscriptionsModifyBody
        case .subscriptionsLookup:
            object(["subscriptions": array(object(["subscriptionID": string], required: ["subscriptionID"]))], required: ["subscriptions"])
        case .assetsUpload:
            object(
                [
                    "tokens": array(
                        object(["recordType": string, "fieldName": string, "recordName": string], required: ["recordType", "fieldName"])),
                    "zoneID": zoneID,
                ], required: ["tokens"])
        default:
            object([:])
        }
    }

    /// `records/modify`: operations of a type and a record.
    private static let recordsModifyBody =
        object(
            [
                "operations": array(
                    object(
                        [
                            "operationType": text([
                                "create", "update", "forceUpdate", "replace", "forceReplace", "delete", "forceDelete",
                            ]), "record": record,
                        ], required: ["operationType", "record"])), "zoneID": zoneID, "atomic": boolean,
            ], required: ["operations"])

    /// `zones/modify`: create or delete zones.
    private static let zonesModifyBody =
        object(
            [
                "operations": array(
                    object(
                        ["operationType": text(["create", "delete"]), "zone": object(["zoneID": zoneID], required: ["zoneID"])],
                        required: ["operationType", "zone"]))
            ], required: ["operations"])

    /// `subscriptions/modify`: create, update or delete subscriptions.
    private static let subscriptionsModifyBody =
        object(
            [
                "operations": array(
                    object(
                        [
                            "operationType": text(["create", "update", "delete"]),
                            "subscription": object([
                                "subscriptionID": string, "subscriptionType": text(["query", "zone"]),
                                "query": object(["recordType": string], required: ["recordType"]), "zoneID": zoneID,
                                "firesOn": array(text(["create", "update", "delete"])),
                            ]),
                        ], required: ["operationType", "subscription"]))
            ], required: ["operations"])

    private static let string: JSONValue = ["type": "string"]
    private static let integer: JSONValue = ["type": "integer"]
    private static let boolean: JSONValue = ["type": "boolean"]
    private static let zoneID = object(["zoneName": string, "ownerRecordName": string], required: ["zoneName"])
    private static let fieldValue = object(
        ["value": ["type": ["string", "number", "integer", "boolean", "array", "object"]], "type": string], required: ["value"])
    private static let record = object([
        "recordName": string, "recordType": string, "recordChangeTag": string,
        "fields": ["type": "object", "additionalProperties": fieldValue],
    ])
    private static let filter = object(
        ["fieldName": string, "comparator": text(Comparator.allCases.map(\.rawValue)), "fieldValue": fieldValue],
        required: ["comparator", "fieldValue"])

    private static func object(_ properties: [String: JSONValue], required: [String] = []) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required.map { .string($0) }) }
        return .object(schema)
    }

    private static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }

    private static func text(_ values: [String]) -> JSONValue { ["type": "string", "enum": .array(values.map { .string($0) })] }
}
