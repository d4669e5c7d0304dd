import CMicroHTTPD
import Foundation
import StratusHTTP
import Synchronization

/// What the transport knows about one request between libmicrohttpd's callbacks.
///
/// Lifetime: retained into libmicrohttpd's per-request pointer on the first
/// callback and released in the request-completed callback.
// Safety: `head`, `body`, `bodyLimit` and `refusal` are touched only by the
// libmicrohttpd thread that owns the connection, one callback at a time. After
// the connection is suspended, `pendingResponse` is written once by whoever wins
// `resumed` (the handler task or shutdown) and read by the owning thread only
// after `MHD_resume_connection`, whose internal mutex orders the two.
final class RequestContext: @unchecked Sendable {
    let connection: OpaquePointer
    var head: HTTPRequest
    var body = Data()
    var bodyLimit: Int
    var refusal: HTTPError?
    var pendingResponse: HTTPResponse?
    var task: Task<Void, Never>?
    private let resumed = Atomic<Bool>(false)

    init(connection: OpaquePointer, head: HTTPRequest, bodyLimit: Int) {
        self.connection = connection
        self.head = head
        self.bodyLimit = bodyLimit
    }

    /// Stores the response and resumes the parked connection; only the first call has any effect.
    ///
    /// - Returns: `true` if this call resumed the connection.
    @discardableResult
    func resume(with response: HTTPResponse) -> Bool {
        guard resumed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        pendingResponse = response
        MHD_resume_connection(connection)
        return true
    }
}
