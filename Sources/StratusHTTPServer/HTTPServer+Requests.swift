import CMicroHTTPD
import Foundation
import StratusHTTP
import StratusLogging
import StratusMetrics
import Synchronization

/// libmicrohttpd's access handler: called once with the head, once per body chunk, and once at the end.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, perRequest in
    guard let cls, let connection, let url, let method, let uploadDataSize, let perRequest else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(
        connection: connection, url: url, method: method, uploadData: uploadData, uploadDataSize: uploadDataSize,
        perRequest: perRequest
    )
}

/// libmicrohttpd's request-completed callback: releases the request's context.
let requestCompleted: MHD_RequestCompletedCallback = { cls, _, perRequest, _ in
    guard let cls, let perRequest, let raw = perRequest.pointee else { return }
    perRequest.pointee = nil
    let context = Unmanaged<InFlightRequest>.fromOpaque(raw).takeRetainedValue()
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    server.requestFinished(context)
}

extension HTTPServer {
    func handle(
        connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>,
        perRequest: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = perRequest.pointee else {
            return begin(connection: connection, url: url, method: method, perRequest: perRequest)
        }
        let context = Unmanaged<InFlightRequest>.fromOpaque(raw).takeUnretainedValue()
        switch context.takePending() {
        case .response(let response):
            return queue(response, on: connection)
        case .admission(let admission):
            // NB: a connection parked by its head check is called again with the head, before any body.
            if let result = apply(admission, to: context) { return result }
            if uploadDataSize.pointee == 0 { return .YES }
        case nil:
            break
        }
        if uploadDataSize.pointee > 0 {
            let keepReading = uploadData.map { receive(UnsafeRawBufferPointer(start: $0, count: uploadDataSize.pointee), into: context) } ?? true
            uploadDataSize.pointee = 0
            return keepReading ? .YES : .NO
        }
        return complete(context, connection: connection)
    }

    /// First call: only the head is in. Sets up the context and, for a request with a body, asks
    /// the responder what to do with it before reading any of it.
    private func begin(
        connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        perRequest: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let (headers, query) = ConnectionValues.read(connection)
        var head = HTTPRequest(
            method: HTTPMethod(rawValue: String(cString: method)), path: String(cString: url), query: query,
            headers: headers
        )
        head.remoteAddress = ConnectionValues.clientAddress(connection)
        head.localAddress = ConnectionValues.localAddress(connection)
        if configuration.tls != nil { head.scheme = "https" }
        let context = InFlightRequest(connection: connection, head: head, bodyLimit: 0)
        // NB: with Transfer-Encoding, libmicrohttpd reads the body as chunks whatever Content-Length says.
        context.declaredLength = headers["Transfer-Encoding"] == nil ? headers["Content-Length"].flatMap { Int($0) } : nil
        perRequest.pointee = Unmanaged.passRetained(context).toOpaque()
        state.withLock { $0.inFlight += 1 }
        inFlightGauge?.add(1)
        // Only a request that says it has a body needs its route's decision; skipping it
        // otherwise keeps bodiless requests to one route match.
        let hasBody = context.declaredLength.map { $0 != 0 } ?? (headers["Transfer-Encoding"] != nil)
        guard hasBody else { return .YES }
        return apply(responder.admit(head), to: context) ?? .YES
    }

    /// Last call: the whole body is in. Answers now or parks the connection for an async handler.
    private func complete(_ context: InFlightRequest, connection: OpaquePointer) -> MHD_Result {
        if let answer = context.answerAfterBody {
            return queue(answer, on: connection)
        }
        if let refusal = context.refusal {
            return queue(responder.reject(context.head, with: refusal), on: connection)
        }
        var request = context.head
        if let sink = context.sink {
            do {
                try sink.finish()
            } catch {
                return queue(responder.reject(context.head, with: error), on: connection)
            }
            request.bodySink = sink
        } else {
            request.body = context.body
            context.body = Data()
        }
        context.head = request
        switch responder.respond(to: request) {
        case .now(let response):
            return queue(response, on: connection)
        case .later(let work):
            park(context, request) { .response(await work()) }
            return .YES
        }
    }

    /// The request is over: its sink is closed and its buffered body no longer counts.
    func requestFinished(_ context: InFlightRequest) {
        context.sink?.close()
        release(context)
        state.withLock { $0.inFlight -= 1 }
        inFlightGauge?.add(-1)
    }

    func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let mhdResponse: OpaquePointer? = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse else {
            logger.error("libmicrohttpd could not allocate a response of \(response.body.count) bytes")
            return .NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers {
            if MHD_add_response_header(mhdResponse, name, value) == .NO {
                logger.warning("libmicrohttpd refused response header \(name)")
            }
        }
        return MHD_queue_response(connection, UInt32(response.status.code), mhdResponse)
    }
}
