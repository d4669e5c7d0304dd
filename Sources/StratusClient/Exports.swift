public import StratusWire

// The wire types the SDK's API speaks in, under the SDK's name, so an app needs only
// `import StratusClient`. Each is the `StratusWire` type itself, not a copy.

/// A record's name and zone.
public typealias RecordID = StratusWire.RecordID
/// A zone's name and owner.
public typealias ZoneID = StratusWire.ZoneID
/// A reference to another record, with its delete action.
public typealias Reference = StratusWire.Reference
/// What happens to a record when the record it references is deleted.
public typealias ReferenceAction = StratusWire.ReferenceAction
/// A geographic location field value.
public typealias Location = StratusWire.Location
/// An asset field value.
public typealias Asset = StratusWire.Asset
/// A record field's tagged wire value.
public typealias FieldValue = StratusWire.FieldValue
/// A record's version token.
public typealias ChangeTag = StratusWire.ChangeTag
/// A position in a change history (CloudKit's server change token).
public typealias SyncToken = StratusWire.SyncToken
/// A query's opaque paging marker.
public typealias ContinuationMarker = StratusWire.ContinuationMarker
/// Public, private or shared.
public typealias DatabaseScope = StratusWire.DatabaseScope
/// A server's `serverErrorCode`.
public typealias ServerErrorCode = StratusWire.ServerErrorCode
/// A query: a record type with filters and sorts.
public typealias Query = StratusWire.Query
/// A share's or participant's permission.
public typealias SharePermission = StratusWire.SharePermission
/// A share participant's role.
public typealias ParticipantType = StratusWire.ParticipantType
/// Whether a participant has accepted a share.
public typealias ParticipantAcceptanceStatus = StratusWire.ParticipantAcceptanceStatus
/// A user's identity: record name, name and how it was looked up.
public typealias UserIdentity = StratusWire.UserIdentity
/// How a user is looked up: e-mail address, phone number or user record name.
public typealias UserLookupInfo = StratusWire.UserLookupInfo
/// The parts of a person's name.
public typealias NameComponents = StratusWire.NameComponents
