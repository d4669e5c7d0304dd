extension CourierNotification {
    /// The CloudKit `ck` dictionary of a push.
    public struct CK: Hashable, Sendable, Codable {
        /// Unidentified (observed `2` in development).
        public var ce: Int?
        /// The container identifier.
        public var cid: String?
        /// The recipient's user record name.
        public var ckuserid: String?
        /// The notification ID (shared by all subscriptions matching one change).
        public var nid: String?
        /// Auxiliary data (observed `{}`).
        public var aux: [String: JSONValue]?
        /// Present when the payload was pruned to fit APNs' size limit.
        public var p: JSONValue?
        /// A query notification.
        public var qry: QueryNotification?
        /// A zone notification.
        public var fet: ZoneNotification?
        /// A database notification.
        public var met: DatabaseNotification?

        /// Creates the `ck` dictionary; set the notification part as needed.
        ///
        /// - Parameters:
        ///   - cid: The container identifier.
        ///   - nid: The notification ID.
        ///   - ckuserid: The recipient's user record name.
        ///   - ce: The `ce` value.
        public init(cid: String? = nil, nid: String? = nil, ckuserid: String? = nil, ce: Int? = nil) {
            self.cid = cid
            self.nid = nid
            self.ckuserid = ckuserid
            self.ce = ce
        }
    }

    /// `ck.qry`: a query subscription fired.
    public struct QueryNotification: Hashable, Sendable, Codable {
        /// The subscription ID.
        public var sid: String?
        /// The record name.
        public var rid: String?
        /// The zone name.
        public var zid: String?
        /// The zone owner's record name.
        public var zoid: String?
        /// Why: `1` created, `2` updated, `3` deleted.
        public var fo: Int?
        /// Database scope: `1` public, `2` private, `3` shared.
        public var dbs: Int?
        /// Extra fields requested through `additionalFields`.
        public var af: [String: JSONValue]?

        /// Creates a query notification.
        ///
        /// - Parameters:
        ///   - sid: The subscription ID.
        ///   - rid: The record name.
        ///   - zid: The zone name.
        ///   - zoid: The zone owner.
        ///   - fo: The reason.
        ///   - dbs: The database scope.
        ///   - af: Extra fields.
        public init(
            sid: String? = nil, rid: String? = nil, zid: String? = nil, zoid: String? = nil, fo: Int? = nil,
            dbs: Int? = nil, af: [String: JSONValue]? = nil
        ) {
            self.sid = sid
            self.rid = rid
            self.zid = zid
            self.zoid = zoid
            self.fo = fo
            self.dbs = dbs
            self.af = af
        }
    }

    /// `ck.fet`: a zone subscription fired.
    public struct ZoneNotification: Hashable, Sendable, Codable {
        /// The zone name.
        public var zid: String?
        /// The zone owner's record name.
        public var zoid: String?
        /// Database scope: `1` public, `2` private, `3` shared.
        public var dbs: Int?
        /// The subscription ID.
        public var sid: String?

        /// Creates a zone notification.
        ///
        /// - Parameters:
        ///   - zid: The zone name.
        ///   - zoid: The zone owner.
        ///   - dbs: The database scope.
        ///   - sid: The subscription ID.
        public init(zid: String? = nil, zoid: String? = nil, dbs: Int? = nil, sid: String? = nil) {
            self.zid = zid
            self.zoid = zoid
            self.dbs = dbs
            self.sid = sid
        }
    }

    /// `ck.met`: a database subscription fired.
    public struct DatabaseNotification: Hashable, Sendable, Codable {
        /// Database scope: `1` public, `2` private, `3` shared.
        public var dbs: Int?
        /// The subscription ID.
        public var sid: String?

        /// Creates a database notification.
        ///
        /// - Parameters:
        ///   - dbs: The database scope.
        ///   - sid: The subscription ID.
        public init(dbs: Int? = nil, sid: String? = nil) {
            self.dbs = dbs
            self.sid = sid
        }
    }
}
