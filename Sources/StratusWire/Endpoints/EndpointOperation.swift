/// A CloudKit Web Services operation: the trailing `{operation}` path segments.
///
/// ```swift
/// EndpointOperation.recordsModify.rawValue     // "records/modify"
/// EndpointOperation.zonesList.httpMethod       // .get
/// EndpointOperation(rawValue: "users/lookup/email")  // .usersLookupEmail
/// ```
///
/// (Not named `Operation`, which Foundation already declares.)
///
/// CloudKit reference: the endpoint pages of the Web Services Reference; Apple's CloudKit Web Services Reference: “Endpoint catalogue”.
public enum EndpointOperation: String, Hashable, Sendable, Codable, CaseIterable {
    /// `records/modify`.
    case recordsModify = "records/modify"
    /// `records/lookup`.
    case recordsLookup = "records/lookup"
    /// `records/query`.
    case recordsQuery = "records/query"
    /// `records/changes`.
    case recordsChanges = "records/changes"
    /// `records/resolve`.
    case recordsResolve = "records/resolve"
    /// `records/accept`.
    case recordsAccept = "records/accept"
    /// `assets/upload`.
    case assetsUpload = "assets/upload"
    /// `assets/rereference`.
    case assetsRereference = "assets/rereference"
    /// `zones/list`.
    case zonesList = "zones/list"
    /// `zones/lookup`.
    case zonesLookup = "zones/lookup"
    /// `zones/modify`.
    case zonesModify = "zones/modify"
    /// `zones/changes` (deprecated).
    case zonesChanges = "zones/changes"
    /// `changes/database`.
    case changesDatabase = "changes/database"
    /// `changes/zone`.
    case changesZone = "changes/zone"
    /// `subscriptions/list`.
    case subscriptionsList = "subscriptions/list"
    /// `subscriptions/lookup`.
    case subscriptionsLookup = "subscriptions/lookup"
    /// `subscriptions/modify`.
    case subscriptionsModify = "subscriptions/modify"
    /// `tokens/create` (under `/device/`).
    case tokensCreate = "tokens/create"
    /// `tokens/register` (under `/device/`).
    case tokensRegister = "tokens/register"
    /// `users/caller`.
    case usersCaller = "users/caller"
    /// `users/current` (deprecated).
    case usersCurrent = "users/current"
    /// `users/discover` (POST with lookup infos, or GET for all).
    case usersDiscover = "users/discover"
    /// `users/lookup/email` (deprecated).
    case usersLookupEmail = "users/lookup/email"
    /// `users/lookup/id` (deprecated).
    case usersLookupID = "users/lookup/id"
    /// `users/lookup/contacts` (deprecated).
    case usersLookupContacts = "users/lookup/contacts"

    /// The HTTP methods of the Web Services API.
    public enum HTTPMethod: String, Hashable, Sendable, CaseIterable {
        /// `GET`.
        case get = "GET"
        /// `POST`.
        case post = "POST"
    }

    /// The URL module an operation lives under: `database` or `device`.
    public enum Module: String, Hashable, Sendable {
        /// `/database/1/…`: every operation except the token ones.
        case database
        /// `/device/1/…`: `tokens/create` and `tokens/register`, which have no database segment.
        case device
    }

    /// The method Apple documents: GET for `zones/list`, `subscriptions/list`, `users/current`,
    /// `users/caller`; POST for everything else (`users/discover` is POST with a body, GET without).
    public var httpMethod: HTTPMethod {
        switch self {
        case .zonesList, .subscriptionsList, .usersCurrent, .usersCaller: .get
        default: .post
        }
    }

    /// The methods a server should accept: the GET endpoints (and `users/discover`) also take a
    /// POST with `{}`, which some third-party clients send.
    public var acceptedMethods: Set<HTTPMethod> {
        switch self {
        case .zonesList, .subscriptionsList, .usersCurrent, .usersCaller, .usersDiscover: [.get, .post]
        default: [.post]
        }
    }

    /// The URL module: `device` for the token operations, `database` for the rest.
    public var module: Module {
        self == .tokensCreate || self == .tokensRegister ? .device : .database
    }

    /// The only database the operation may address, if fixed: `public` for `users/*`,
    /// `records/resolve` and `records/accept`.
    public var requiredDatabase: DatabaseScope? {
        switch self {
        case .usersCaller, .usersCurrent, .usersDiscover, .usersLookupEmail, .usersLookupID, .usersLookupContacts,
            .recordsResolve, .recordsAccept:
            .public
        default: nil
        }
    }
}
