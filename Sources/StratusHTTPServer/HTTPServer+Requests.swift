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
    Unmanaged<RequestContext>.fromOpaque(raw).release()
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    server.requestFinished()
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
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        if let response = context.pendingResponse {
            context.pendingResponse = nil
            return queue(response, on: connection)
        }
        if uploadDataSize.pointee > 0 {
            if context.refusal == nil, let uploadData {
                if context.body.count + uploadDataSize.pointee > context.bodyLimit {
                    context.refusal = .bodyTooLarge(limit: context.bodyLimit)
                    context.body = Data()
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) {
                        context.body.append($0, count: uploadDataSize.pointee)
                    }
                }
            }
            uploadDataSize.pointee = 0
            return .YES
        }
        return complete(context, connection: connection)
    }

    /// First call: only the head is in. Sets up the context; refuses at once a declared body over the limit.
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
        // Only a request that says it has a body needs its route's limit; skipping the lookup
        // otherwise keeps bodiless requests to one route match.
        let hasBody = headers["Content-Length"].map { $0 != "0" } ?? (headers["Transfer-Encoding"] != nil)
        let limit = hasBody ? responder.maximumBodySize(method: head.method, path: head.path) : 0
        let context = RequestContext(connection: connection, head: head, bodyLimit: limit)
        perRequest.pointee = Unmanaged.passRetained(context).toOpaque()
        state.withLock { $0.inFlight += 1 }
        inFlightGauge?.add(1)
        if let declared = headers["Content-Length"].flatMap({ Int($0) }), declared > limit {
            // NB: a response queued before the body is read makes libmicrohttpd skip the body
            // and close the connection after replying.
            context.refusal = .bodyTooLarge(limit: limit)
            return queue(responder.reject(head, with: .bodyTooLarge(limit: limit)), on: connection)
        }
        return .YES
    }

    /// Last call: the whole body is in. Answers now or parks the connection for an async handler.
    private func complete(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        if let refusal = context.refusal {
            return queue(responder.reject(context.head, with: refusal), on: connection)
        }
        var request = context.head
        request.body = context.body
        context.body = Data()
        context.head = request
        switch responder.respond(to: request) {
        case .now(let response):
            return queue(response, on: connection)
        case .later(let work):
            // NB: suspend before anything can resume: resuming a connection that is not
            // suspended is undefined behaviour in libmicrohttpd.
            MHD_suspend_connection(connection)
            let key = ObjectIdentifier(context)
            // NB: once shutdown has begun, nothing new may park: shutdown resumes only the parked
            // connections it knows, and stopping the daemon with one still suspended aborts the
            // process (keep-alive clients such as long-pollers send new requests during shutdown).
            let parked = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.parked[key] = Parked(context: context, task: nil)
                return true
            }
            guard parked else {
                context.resume(with: responder.reject(request, with: .shuttingDown))
                return .YES
            }
            parkedGauge?.add(1)
            let task = Task { [self] in
                let response = await work()
                state.withLock { _ = $0.parked.removeValue(forKey: key) }
                parkedGauge?.add(-1)
                context.resume(with: response)
            }
            state.withLock { state in
                if state.parked[key] != nil { state.parked[key]?.task = task }
            }
            return .YES
        }
    }

    func requestFinished() {
        state.withLock { $0.inFlight -= 1 }
        inFlightGauge?.add(-1)
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
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
