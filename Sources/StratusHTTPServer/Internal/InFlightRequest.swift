import CMicroHTTPD
import Foundation
import StratusHTTP
import Synchronization

/// What the transport knows about one request between libmicrohttpd's callbacks.
///
/// Lifetime: retained into libmicrohttpd's per-request pointer on the first
/// callback and released in the request-completed callback.
// Safety: every stored property but `pending` is touched only by the libmicrohttpd
// thread that owns the connection, one callback at a time. While the connection is
// suspended, `pending` is written once by whoever wins `suspension` for that
// suspension's ticket (the task that parked it, or shutdown) and read by the owning
// thread only after `MHD_resume_connection`, whose internal mutex orders the two.
final class InFlightRequest: @unchecked Sendable {
    /// What a parked request comes back with.
    enum Pending: Sendable {
        /// The answer: send it.
        case response(HTTPResponse)
        /// The head check's decision: apply it, then read the body.
        case admission(HTTPAdmission)
    }

    let connection: OpaquePointer
    var head: HTTPRequest
    var body = Data()
    var bodyLimit: Int
    /// The declared `Content-Length`, if any.
    var declaredLength: Int?
    /// Where the body goes instead of ``body`` when the route streams it.
    var sink: (any HTTPBodySink)?
    /// Why the body, found wrong while it was read, is discarded and refused at its end.
    var refusal: HTTPError?
    /// The answer decided from the head, sent once the body was read and discarded (so a client
    /// still sending it reads the answer, not a reset).
    var answerAfterBody: HTTPResponse?
    /// Bytes of a refused body read and thrown away so far.
    var discarded = 0
    /// Bytes of the body received so far, kept or not.
    var received = 0
    /// Whether the head check parked the connection: a client that asked first
    /// (`Expect: 100-continue`) may have tired of waiting and be sending its body by now.
    var wasParked = false
    /// Bytes of this request's body counted in the server's total of buffered bodies.
    var buffered = 0
    private var pending: Pending?
    private var suspensions = 0
    /// The ticket of the current suspension, or 0 while the connection is not suspended.
    private let suspension = Atomic<Int>(0)

    init(connection: OpaquePointer, head: HTTPRequest, bodyLimit: Int) {
        self.connection = connection
        self.head = head
        self.bodyLimit = bodyLimit
    }

    /// Suspends the connection (owning thread only) and returns the ticket that resumes it.
    func suspend() -> Int {
        suspensions += 1
        suspension.store(suspensions, ordering: .releasing)
        MHD_suspend_connection(connection)
        return suspensions
    }

    /// Stores what the request comes back with and resumes the connection suspended under
    /// `ticket`; only the first call for a ticket has any effect, and a stale ticket none.
    ///
    /// - Returns: `true` if this call resumed the connection.
    @discardableResult
    func resume(_ ticket: Int, with outcome: Pending) -> Bool {
        guard suspension.compareExchange(expected: ticket, desired: 0, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        pending = outcome
        MHD_resume_connection(connection)
        return true
    }

    /// What the last suspension came back with, once (owning thread only).
    func takePending() -> Pending? {
        defer { pending = nil }
        return pending
    }
}
