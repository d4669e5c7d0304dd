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
