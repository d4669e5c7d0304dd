import CMicroHTTPD
import Foundation
import StratusHTTP
import StratusMetrics
import Synchronization

/// The head check's decisions, the body as it arrives, and parked connections.
extension HTTPServer {
    /// Applies the responder's decision about a request's body.
    ///
    /// - Returns: The callback's result when the decision answered or parked the request; `nil`
    ///   when the body is to be read.
    func apply(_ admission: HTTPAdmission, to context: InFlightRequest) -> MHD_Result? {
        switch admission {
        case .buffer(let limit):
            context.bodyLimit = limit
            guard let declared = context.declaredLength else { return nil }
            if declared > limit {
                return refuse(context, with: .bodyTooLarge(limit: limit))
            }
            return reserve(declared, for: context) ? nil : refuse(context, with: .tooManyBodies)
        case .stream(let sink):
            context.sink = sink
            return nil
        case .refuse(let response):
            return answerBeforeBody(response, context)
        case .later(let decide):
            context.wasParked = true
            park(context, context.head) { .admission(await decide()) }
            return .YES
        }
    }

    private func refuse(_ context: InFlightRequest, with error: HTTPError) -> MHD_Result? {
        answerBeforeBody(responder.reject(context.head, with: error), context)
    }

    /// Answers a request from its head, before its body.
    ///
    /// At once when the client waits for a go-ahead (`Expect: 100-continue`, decided without
    /// parking: it then sends no body) or the declared body is larger than
    /// ``HTTPServerConfiguration/maximumDiscardedBodyBytes`` (or undeclared); libmicrohttpd then
    /// skips the body and closes the connection after the answer. Otherwise the body is read and
    /// thrown away first: closing a connection with unread bytes resets it, and a client still
    /// sending would see the reset instead of the answer. That answer closes the connection too
    /// (`Connection: close`): a refused client does not keep it for more refused bodies.
    ///
    /// - Returns: The callback's result when answered at once; `nil` when the body is to be read.
    private func answerBeforeBody(_ response: HTTPResponse, _ context: InFlightRequest) -> MHD_Result? {
        // NB: after a park the client may have stopped waiting for the go-ahead (curl waits 1 s).
        let waitsForGoAhead = !context.wasParked && context.head.headers["Expect"]?.lowercased() == "100-continue"
        guard !waitsForGoAhead, let declared = context.declaredLength, declared <= configuration.maximumDiscardedBodyBytes else {
            return queue(response, on: context.connection)
        }
        var answer = response
        answer.headers.replaceOrAdd("Connection", "close")
        context.answerAfterBody = answer
        return nil
    }

    /// Takes one piece of the body: into the sink, or into memory within the limits; a refused
    /// body is thrown away.
    ///
    /// - Returns: `false` when a refused body passed ``HTTPServerConfiguration/maximumDiscardedBodyBytes``:
    ///   the connection is to be closed rather than read on.
    func receive(_ bytes: UnsafeRawBufferPointer, into context: InFlightRequest) -> Bool {
        context.received += bytes.count
        guard context.refusal == nil, context.answerAfterBody == nil else {
            context.discarded += bytes.count
            // A declared body whose rest is past the bound is cut off now, not after another 8 MiB.
            let rest = context.declaredLength.map { $0 - context.received } ?? 0
            return context.discarded + rest <= configuration.maximumDiscardedBodyBytes
        }
        if let sink = context.sink {
            do {
                try sink.write(bytes)
            } catch {
                context.refusal = error
                sink.close()
            }
            return true
        }
        let size = context.body.count + bytes.count
        if size > context.bodyLimit {
            context.refusal = .bodyTooLarge(limit: context.bodyLimit)
        } else if size > context.buffered, !reserve(size - context.buffered, for: context) {
            context.refusal = .tooManyBodies
        } else {
            context.body.append(contentsOf: bytes)
            return true
        }
        context.body = Data()
        release(context)
        return true
    }

    /// Counts `count` more bytes of `context`'s body in the total of bodies held in memory;
    /// refuses when the total would pass ``HTTPServerConfiguration/maximumBufferedBodyBytes``.
    private func reserve(_ count: Int, for context: InFlightRequest) -> Bool {
        let limit = configuration.maximumBufferedBodyBytes
        let total = bufferedBodyTotal.wrappingAdd(count, ordering: .relaxed).newValue
        if limit > 0, total > limit {
            bufferedBodyTotal.wrappingSubtract(count, ordering: .relaxed)
            return false
        }
        context.buffered += count
        bufferedGauge?.add(Int64(count))
        return true
    }

    /// Stops counting `context`'s body.
    func release(_ context: InFlightRequest) {
        guard context.buffered > 0 else { return }
        bufferedBodyTotal.wrappingSubtract(context.buffered, ordering: .relaxed)
        bufferedGauge?.add(-Int64(context.buffered))
        context.buffered = 0
    }

    /// Suspends the connection and runs `work` as a task; what it returns resumes the connection.
    ///
    /// Shutdown answers whatever is still parked at its deadline itself. An entry leaves
    /// ``HTTPServer/State/parked`` only after its connection was resumed, by whoever resumed it,
    /// so shutdown never stops the daemon while a connection it does not know of is suspended.
    func park(_ context: InFlightRequest, _ request: HTTPRequest, work: @escaping @Sendable () async -> InFlightRequest.Pending) {
        // NB: suspend before anything can resume: resuming a connection that is not
        // suspended is undefined behaviour in libmicrohttpd.
        let ticket = context.suspend()
        let key = ObjectIdentifier(context)
        // NB: once shutdown has begun, nothing new may park: shutdown resumes only the parked
        // connections it knows, and stopping the daemon with one still suspended aborts the
        // process (keep-alive clients such as long-pollers send new requests during shutdown).
        // Resuming here, on the connection's own thread, ends before `MHD_stop_daemon` joins it.
        let parked = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.parked[key] = Parked(context: context, ticket: ticket, task: nil)
            state.handlers += 1
            return true
        }
        guard parked else {
            context.resume(ticket, with: .response(responder.reject(request, with: .shuttingDown)))
            return
        }
        parkedGauge?.add(1)
        let task = Task { [self] in
            resume(context, ticket, with: await work())
            state.withLock { $0.handlers -= 1 }
        }
        state.withLock { state in
            if state.parked[key]?.ticket == ticket { state.parked[key]?.task = task }
        }
    }

    /// Resumes a parked connection with `outcome` unless someone else resumed it under `ticket`
    /// first; the one who resumed it then forgets it.
    func resume(_ context: InFlightRequest, _ ticket: Int, with outcome: InFlightRequest.Pending) {
        guard context.resume(ticket, with: outcome) else {
            // Resumed first by someone else (shutdown answered 503): a sink this decision opened (an
            // upload's file and ticket) never gets a body, and nobody else would close it.
            if case .admission(.stream(let sink)) = outcome { sink.close() }
            return
        }
        // NB: after MHD_resume_connection, never before: shutdown waits for `parked` to empty
        // before it stops the daemon.
        let removed = state.withLock { state -> Bool in
            let key = ObjectIdentifier(context)
            guard state.parked[key]?.ticket == ticket else { return false }
            state.parked[key] = nil
            return true
        }
        if removed { parkedGauge?.add(-1) }
    }
}
