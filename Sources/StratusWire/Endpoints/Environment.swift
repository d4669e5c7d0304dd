/// Which of a container's two data sets a request addresses: the `{environment}` path segment.
///
/// CloudKit reference: Composing Web Service Requests; Apple's CloudKit Web Services Reference: “URL template”.
public enum Environment: String, Hashable, Sendable, Codable, CaseIterable {
    /// `development`: the schema can change; used while building the app.
    case development
    /// `production`: what store builds use.
    case production
}
