/// `records/resolve` (public database): preview shares by short GUID before accepting.
///
/// CloudKit reference: Fetching Share Metadata (records/resolve); Apple's CloudKit Web Services Reference: “records/resolve”.
public enum RecordsResolve: WireEndpoint {
    /// `records/resolve`.
    public static let operation = EndpointOperation.recordsResolve

    /// The `records/resolve` (and `records/accept`) request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The shares to resolve.
        public var shortGUIDs: [ShortGUID]

        /// Creates a request.
        ///
        /// - Parameter shortGUIDs: The shares.
        public init(shortGUIDs: [ShortGUID]) {
            self.shortGUIDs = shortGUIDs
        }
    }

    /// The `records/resolve` (and `records/accept`) response body: one result per input, in order.
    public struct Response: Hashable, Sendable, Codable {
        /// Share metadata or errors.
        public var results: [ShortGUIDResult]

        /// Creates a response.
        ///
        /// - Parameter results: One result per input.
        public init(results: [ShortGUIDResult]) {
            self.results = results
        }
    }
}

/// `records/accept` (public database): accept shares; same body shapes as `records/resolve`.
///
/// CloudKit reference: Accepting Share Records (records/accept); Apple's CloudKit Web Services Reference: “records/accept”.
public enum RecordsAccept: WireEndpoint {
    /// `records/accept`.
    public static let operation = EndpointOperation.recordsAccept
    /// Same as ``RecordsResolve/Request``.
    public typealias Request = RecordsResolve.Request
    /// Same as ``RecordsResolve/Response``.
    public typealias Response = RecordsResolve.Response
}
