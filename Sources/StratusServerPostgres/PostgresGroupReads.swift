import StratusServer

/// What a group of writes of one zone will read (``PostgresWriteCoalescer``), read in the group's
/// first locking pipeline instead of in one round trip per write.
///
/// The first write of a group looks its zone up (``zoneRowID`` is noted then) and locks it with
/// `prefetchRecords`, which adds every write's hinted record names to its read and asks the push
/// outbox's subscription question for every hinted type, answered for the whole group
/// (`PostgresSubscriptionProbes`). The records are kept in the transaction's cache, which the zone
/// lock keeps true until the `COMMIT`; a later write finds its records and answers there and sends
/// nothing. Used once: if the first write's savepoint rolls back, its lock and what it read go with
/// it, and each later write reads for itself, as without the hint.
struct PostgresGroupReads {
    /// The group's zone.
    let zone: ZoneName
    /// Every write's record names, once each.
    let recordNames: [String]
    /// Every write's record types.
    let recordTypes: Set<String>
    /// The zone's row, once a write of the transaction looked it up by name.
    var zoneRowID: Int64?

    init(zone: ZoneName, hints: [RecordWriteHint]) {
        self.zone = zone
        var names: Set<String> = []
        var types: Set<String> = []
        for hint in hints {
            names.formUnion(hint.recordNames)
            types.formUnion(hint.recordTypes)
        }
        recordNames = names.sorted()
        recordTypes = types
    }
}

extension PostgresStoreTransaction {
    /// Notes the row of the group's zone when a write looks it up by name.
    func noteGroupZone(_ zone: ZoneRow, named name: ZoneName) {
        guard groupReads?.zone == name, groupReads?.zoneRowID == nil else { return }
        groupReads?.zoneRowID = zone.rowID
    }

    /// The group's record names to read with this zone's lock (once; none for another zone), its
    /// types' subscription questions announced for every write of the group.
    func takeGroupReads(inZone zoneRowID: Int64) -> [String] {
        guard let reads = groupReads, reads.zoneRowID == zoneRowID else { return [] }
        groupReads = nil
        probes.announce(in: reads.zone.database, zoneName: reads.zone.name, recordTypes: reads.recordTypes, shared: true)
        return reads.recordNames
    }
}
