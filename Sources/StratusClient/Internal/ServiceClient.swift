import Foundation
import StratusLogging
import StratusWire

/// Sends wire requests for one container: builds, signs, retries, maps errors, refreshes tokens.
final class ServiceClient: Sendable {
    let builder: RequestBuilder
    let transport: any HTTPTransport
    let configuration: ClientConfiguration

    init(builder: RequestBuilder, transport: any HTTPTransport, configuration: ClientConfiguration) {
        self.builder = builder
        self.transport = transport
        self.configuration = configuration
    }

    /// Sends one request to `Endpoint` in `database` and decodes its response.
    ///
    /// - Parameters:
    ///   - endpoint: The wire endpoint.
    ///   - request: The request body.
    ///   - database: The database scope.
    ///   - idempotent: Whether the request may be resent after a network failure (it changes nothing).
    /// - Throws: ``StratusError``, or `CancellationError` when the task is cancelled.
    func send<E: WireEndpoint>(
        _ endpoint: E.Type, _ request: E.Request, database: DatabaseScope, idempotent: Bool
    ) async throws -> E.Response {
        try decode(endpoint, try await sendForBody(endpoint, request, database: database, idempotent: idempotent))
    }

    /// Sends one request to `Endpoint` in `database`; returns the body of its answer, not yet decoded.
    ///
    /// - Throws: ``StratusError``, or `CancellationError` when the task is cancelled.
    func sendForBody<E: WireEndpoint>(
        _ endpoint: E.Type, _ request: E.Request, database: DatabaseScope, idempotent: Bool
    ) async throws -> Data {
        let body: Data
        do {
            body = E.operation.httpMethod == .get ? Data() : try WireCoding.encode(request)
        } catch {
            throw StratusError(.invalidArguments, "cannot encode the \(E.operation.rawValue) request: \(error)", underlying: error)
        }
        return try await send(E.operation, body: body, database: database, idempotent: idempotent)
    }

    /// Decodes the body of an answer from `Endpoint`.
    ///
    /// - Throws: ``StratusError/Code/serverResponseLost`` when it is not the endpoint's response.
    func decode<E: WireEndpoint>(_ endpoint: E.Type, _ data: Data) throws(StratusError) -> E.Response {
        do {
            return try WireCoding.decode(E.Response.self, from: data)
        } catch {
            throw StratusError(.serverResponseLost, "cannot decode the \(E.operation.rawValue) response: \(error)", underlying: error)
        }
    }

    /// Sends raw bytes with retries; returns the body of a 200 response.
    private func send(_ operation: EndpointOperation, body: Data, database: DatabaseScope, idempotent: Bool) async throws -> Data {
        let logger = configuration.logger
        var attempt = 1
        while true {
            try Task.checkCancellation()
            let request = try builder.request(operation, database: database, body: body, timeout: configuration.requestTimeout)
            let failure: StratusError
            do {
                let response = try await transport.send(request)
                builder.absorb(response)
                if response.status == 200 { return response.body }
                failure = Self.error(from: response)
            } catch {
                guard let mapped = StratusError.transport(error), !Task.isCancelled else { throw CancellationError() }
                failure = mapped
            }
            guard Self.mayRetry(failure, idempotent: idempotent),
                let delay = configuration.retryPolicy.delay(
                    beforeRetry: attempt, retryAfter: failure.retryAfter, random: configuration.random())
            else { throw failure }
            logger.info(
                "retrying \(operation.rawValue) after \(delay)",
                metadata: ["attempt": "\(attempt)", "error": failure.code.rawValue])
            try await configuration.sleep(delay)
            attempt += 1
        }
    }

    /// Whether `error` is worth another attempt.
    static func mayRetry(_ error: StratusError, idempotent: Bool) -> Bool {
        switch error.code {
        case .requestRateLimited, .serviceUnavailable: true
        case .networkFailure, .networkUnavailable: idempotent
        default: idempotent && error.retryAfter != nil
        }
    }

    /// The error a non-200 response stands for, from its CloudKit error body or else its status.
    static func error(from response: TransportResponse) -> StratusError {
        // A proxy may answer with HTML; only a CloudKit error body is read as one.
        if let body = try? WireCoding.decode(ErrorBody.self, from: response.body), let code = body.serverErrorCode {
            let wire = ErrorResponse(
                uuid: body.uuid ?? "", serverErrorCode: code, reason: body.reason ?? "", retryAfter: body.retryAfter,
                redirectURL: body.redirectURL)
            var error = StratusError(wire, httpStatus: response.status)
            if body.uuid == nil { error.uuid = nil }
            return error
        }
        let text = String(decoding: response.body.prefix(200), as: UTF8.self)
        var error = StratusError(
            StratusError.Code(serverErrorCode: nil, httpStatus: response.status),
            "the server answered HTTP \(response.status)" + (text.isEmpty ? "" : ": \(text)"))
        error.httpStatus = response.status
        return error
    }
}

/// A whole-request error body read leniently: every key optional.
private struct ErrorBody: Decodable {
    var uuid: String?
    var serverErrorCode: ServerErrorCode?
    var reason: String?
    var retryAfter: Int?
    var redirectURL: String?
}
