/// Which database a request addresses: the `{database}` path segment.
///
/// CloudKit reference: Composing Web Service Requests; Apple's CloudKit Web Services Reference: “URL template”, “Database scope rules”.
public enum DatabaseScope: String, Hashable, Sendable, Codable, CaseIterable {
    /// `public`: shared by all users of the app.
    case `public`
    /// `private`: the signed-in user's own data.
    case `private`
    /// `shared`: zones other users shared with the caller.
    case shared
}
