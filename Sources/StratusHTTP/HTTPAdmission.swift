/// What a route decides about a request from its head alone, before the transport reads any
/// byte of the body: a route's head check (``Router/route(_:_:maximumBodySize:check:handler:)``)
/// returns one, or throws to refuse the request.
///
/// Refusing on the head is what keeps an attacker's bodies out of memory: a request whose
/// upload ticket or credentials are bad never reaches a sink or a handler, and its body is
/// never held. The transport answers at once when the client asked first (`Expect:
/// 100-continue`) or the body is large, or else reads and throws the body away first (so a
/// client still sending reads the answer, not a reset); either way the connection closes after
/// the answer.
///
/// ```swift
/// router.route(.post, "/upload/{ticket}", check: { head in
///     guard isValid(head.parameters["ticket"]) else { throw HTTPError.badRequest("invalid ticket") }
///     return .stream(try UploadFile(limit: 50 << 20))
/// }) { request in
///     try await store(request.bodySink)
/// }
/// ```
public enum HeadDecision: Sendable {
    /// Read the body into memory, up to the route's limit, and call the handler.
    case admit
    /// Write the body into `sink` as it arrives instead of memory; the handler finds it in
    /// ``HTTPRequest/bodySink``.
    case stream(any HTTPBodySink)
    /// Decide after asynchronous work, such as a store read. The connection waits parked,
    /// holding no thread, and no body byte is read meanwhile; throwing refuses the request.
    case later(@Sendable () async throws -> HeadDecision)
}

/// What the transport does with a request once its head is in: the ``HTTPResponder``'s answer
/// to ``HTTPResponder/admit(_:)``, with refusals already rendered.
public enum HTTPAdmission: Sendable {
    /// Read the body into memory; more than `limit` bytes is answered 413.
    case buffer(limit: Int)
    /// Write the body into the sink as it arrives.
    case stream(any HTTPBodySink)
    /// Send this response; the body goes to no handler (it is thrown away, or not read at all
    /// when large), and the connection closes after the answer.
    case refuse(HTTPResponse)
    /// Park the connection without reading the body until `decide` answers.
    case later(@Sendable () async -> HTTPAdmission)
}

/// Where a request body goes as it arrives when its route streams it (``HeadDecision/stream(_:)``)
/// rather than holding it in memory: a temporary file, a hash.
///
/// The transport calls ``write(_:)`` for every piece of the body in order on the thread that
/// reads the connection, then ``finish()`` once the body is complete, and ``close()`` when the
/// request is over, whatever happened (answered, refused, or the client went away). A sink must
/// not block for long: it runs on the event loop.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// Takes the next bytes of the body.
    ///
    /// - Throws: An ``HTTPError`` to refuse the request (a body over the sink's limit); the rest
    ///   of the body is then discarded and the error is the answer.
    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPError)

    /// The whole body has arrived.
    ///
    /// - Throws: An ``HTTPError`` to refuse the request instead of calling the handler.
    func finish() throws(HTTPError)

    /// The request is over: release what the body holds unless the handler took it.
    func close()
}
