/// Ties an operation to its request and response body types.
///
/// Each Web Services endpoint has a namespace conforming to this protocol, such as
/// ``RecordsModify`` with ``RecordsModify/Request`` and ``RecordsModify/Response``. A generic
/// client can then be written once:
///
/// ```swift
/// import Foundation
/// import StratusWire
///
/// func call<E: WireEndpoint>(
///     _: E.Type, _ request: E.Request, post: (EndpointOperation, Data) async throws -> Data
/// ) async throws -> E.Response {
///     let body = try WireCoding.encode(request)
///     let data = try await post(E.operation, body)  // to the operation's path
///     return try WireCoding.decode(E.Response.self, from: data)
/// }
/// ```
public protocol WireEndpoint {
    /// The request body type (``EmptyBody`` for GET endpoints).
    associatedtype Request: Codable & Sendable
    /// The response body type.
    associatedtype Response: Codable & Sendable
    /// The operation this endpoint serves.
    static var operation: EndpointOperation { get }
}

/// An empty JSON object `{}`: the body of GET endpoints and acknowledgements without content.
public struct EmptyBody: Hashable, Sendable, Codable {
    /// Creates an empty body.
    public init() {}
}
