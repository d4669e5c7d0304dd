public import StratusServer
public import StratusWire

/// What the push-schema upgrade tests of both back ends write before the outbox migration and
/// expect after it: two subscriptions (their watch filled in from their bodies) and a token
/// with no owner.
public enum PushSchemaUpgradeFixture {
    /// The database the rows belong to: `iCloud.c`'s public development database.
    public static let database = DatabaseKey(container: "iCloud.c", environment: .development, scope: .public, owner: DatabaseKey.publicOwner)

    /// A zone-wide query subscription on `Post` and a zone subscription on `Work`, both of `_alice`.
    public static let subscriptions = [
        Subscription(subscriptionID: "posts", subscriptionType: .query, query: Query(recordType: "Post"), zoneWide: true),
        Subscription(subscriptionID: "zone", subscriptionType: .zone, zoneID: ZoneID(zoneName: "Work")),
    ]

    /// The token row the old schema had: `t`, bound to `_alice`, expiring at 99.
    public static let tokenName = "t"

    /// What an upgraded store answers: the candidates of a `Post` change in `Home`, of a `Note`
    /// change in `Work`, and token `t`'s user and owner.
    public static func observe(_ store: any RecordStore) async throws -> [String] {
        try await store.read { tx in
            let posts = try tx.subscriptionCandidates(in: database, zoneName: "Home", recordTypes: ["Post"], after: nil, limit: 10)
            let work = try tx.subscriptionCandidates(in: database, zoneName: "Work", recordTypes: ["Note"], after: nil, limit: 10)
            let token = try tx.pushToken(tokenName)
            return posts.map { "Post in Home: " + $0.subscription.subscriptionID } + work.map { "Note in Work: " + $0.subscription.subscriptionID }
                + ["token user: \(token?.user ?? "none")", "token owner: \(token?.owner ?? "none")"]
        }
    }

    /// What ``observe(_:)`` must answer.
    public static let expected = ["Post in Home: posts", "Note in Work: zone", "token user: _alice", "token owner: none"]
}
