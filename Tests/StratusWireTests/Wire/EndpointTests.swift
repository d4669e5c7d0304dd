import StratusWire
import Testing

@Suite struct EndpointTests {
    /// Database operations build `/database/1/{container}/{environment}/{database}/{operation}`.
    @Test func databasePathsIncludeTheDatabase() throws {
        let endpoint = Endpoint(
            container: "iCloud.com.example.App", environment: .development, database: .private, operation: .recordsQuery)
        #expect(endpoint.path == "/database/1/iCloud.com.example.App/development/private/records/query")
        #expect(try Endpoint(path: endpoint.path) == endpoint)
    }

    /// Token operations live under `/device/1/…` with no database segment.
    @Test func tokenPathsUseTheDeviceModule() throws {
        let endpoint = Endpoint(
            container: "iCloud.com.example.App", environment: .production, database: .public, operation: .tokensCreate)
        #expect(endpoint.database == nil)
        #expect(endpoint.path == "/device/1/iCloud.com.example.App/production/tokens/create")
        #expect(
            try Endpoint(path: "/device/1/iCloud.com.example.App/production/tokens/register?ckAPIToken=x").operation
                == .tokensRegister)
        #expect(try Endpoint(path: "/database/1/iCloud.com.example.App/production/tokens/create").operation == .tokensCreate)
    }

    /// Every operation's path parses back to the same endpoint.
    @Test(arguments: EndpointOperation.allCases)
    func everyOperationRoundTripsThroughItsPath(operation: EndpointOperation) throws {
        let endpoint = Endpoint(
            container: "iCloud.c", environment: .development, database: operation.requiredDatabase ?? .shared,
            operation: operation)
        #expect(try Endpoint(path: endpoint.path) == endpoint)
    }

    /// HTTP methods follow the reference: GET for the list/current/caller endpoints, POST otherwise.
    @Test func methodsFollowTheReference() {
        let gets = EndpointOperation.allCases.filter { $0.httpMethod == .get }
        #expect(Set(gets) == [.zonesList, .subscriptionsList, .usersCurrent, .usersCaller])
        #expect(EndpointOperation.usersDiscover.acceptedMethods == [.get, .post])
        #expect(EndpointOperation.recordsModify.acceptedMethods == [.post])
        #expect(EndpointOperation.recordsResolve.requiredDatabase == .public)
        #expect(EndpointOperation(rawValue: "users/lookup/email") == .usersLookupEmail)
        #expect(RecordsModify.operation == .recordsModify && ZoneChanges.operation == .changesZone)
    }

    /// Bad paths are rejected with a message naming the bad segment.
    @Test(arguments: [
        "/database/2/c/development/public/records/query",
        "/database/1/c/staging/public/records/query",
        "/database/1/c/development/global/records/query",
        "/database/1/c/development/public/records/teleport",
        "/device/1/c/development/records/query",
        "/database/1/c/development/public",
        "/x",
    ])
    func badPathsAreRejected(path: String) {
        expectWireError(.invalidPath) { try Endpoint(path: path) }
    }
}
