/// Which of a container's two data sets a request addresses: the `{environment}` path segment.
///
/// CloudKit reference: Composing Web Service Requests; protocol.md §1.1.
public enum Environment: String, Hashable, Sendable, Codable, CaseIterable {
    /// `development`: the schema can change; used while building the app.
    case development
    /// `production`: what store builds use.
    case production
}
