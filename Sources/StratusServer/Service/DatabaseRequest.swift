import Foundation
import StratusHTTP
import StratusWire

/// A `/database/1/…` request, resolved by ``RequestAdmission``: the container, environment,
/// database and operation its URL addresses, and who makes it.
struct DatabaseRequest: Sendable {
    let request: HTTPRequest
    let operation: EndpointOperation
    let database: DatabaseKey
    let caller: String
    /// How the caller authenticated.
    let principal: Principal
    let deviceID: String
    /// Signs download URLs for the assets of records in the response (set by `handle`).
    var assetLinks: AssetLinks? = nil

    var environment: Environment { database.environment }
    var container: String { database.container }
    var requestID: String { request.requestID }

    /// Decodes the body with the schema interpreting untagged field values.
    func decode<T: Decodable>(_ type: T.Type, schema: Schema? = nil) throws(ServiceError) -> T {
        try request.decodeBody(type, schema: schema)
    }

    /// The zone a request names, checked against the database: the public database
    /// has only the default zone, and a zone owner must be the database's owner.
    func zoneName(of zoneID: ZoneID?) throws(ServiceError) -> String {
        let zoneID = zoneID ?? .defaultZone
        if let owner = zoneID.ownerRecordName, database.scope != .public, owner != database.owner {
            throw ServiceError(.zoneNotFound, "zone '\(zoneID.zoneName)' of owner '\(owner)' is not in this database")
        }
        if database.scope == .public, !zoneID.isDefaultZone {
            throw ServiceError(.zoneNotFound, "the public database has only the zone '_defaultZone'; '\(zoneID.zoneName)' does not exist")
        }
        return zoneID.zoneName
    }

    /// The numbersAsStrings encoding flag.
    func encode(_ value: some Encodable, numbersAsStrings: Bool?) throws -> HTTPResponse {
        .json(bytes: try WireCoding.encode(value, numbersAsStrings: numbersAsStrings ?? false))
    }

    /// This request run in another database (a sharer's private database) by the same caller.
    func acting(in database: DatabaseKey) -> DatabaseRequest {
        var context = DatabaseRequest(
            request: request, operation: operation, database: database, caller: caller, principal: principal, deviceID: deviceID
        )
        context.assetLinks = assetLinks
        return context
    }
}

extension HTTPRequest {
    /// Decodes the JSON body (an empty body reads as `{}`), the schema interpreting untagged field values.
    ///
    /// - Throws: `BAD_REQUEST` naming what does not decode.
    func decodeBody<T: Decodable>(_ type: T.Type, schema: Schema? = nil) throws(ServiceError) -> T {
        do {
            return try WireCoding.decode(type, from: body.isEmpty ? Data("{}".utf8) : body, fieldTypes: schema?.fieldTypeLookup)
        } catch {
            throw ServiceError.badRequest(error.reason)
        }
    }
}
