import Foundation
import StratusCrypto
import StratusSQLite
import StratusWire

/// How `Data` fields travel: inline (`BYTES`) up to the threshold, as an asset (`ASSETID`) above it.
///
/// A field's type is fixed once the schema has it, so the two forms live in two record fields: the
/// mapped field holds small values, `<field>_asset` large ones; whichever is not in use is cleared.
enum AssetFields {
    /// The record field holding the asset form of `remote`.
    static func assetKey(_ remote: String) -> String { remote + "_asset" }

    /// The SHA-256 of bytes, hex: what the bookkeeping remembers of the bytes an entity holds.
    static func digest(_ data: Data) -> String { SHA256.hash(data).hexString }

    /// The asset a record holds for `remote`, if it travels as one.
    static func asset(in fields: [String: FieldValue]?, remote: String) -> Asset? {
        guard case .asset(let asset)? = fields?[assetKey(remote)] else { return nil }
        return asset
    }
}

/// The asset an entity holds the bytes of: the server's checksum and the SHA-256 of the bytes.
struct HeldAsset: Sendable, Equatable {
    var checksum: String
    var digest: String
}

extension SyncBookkeeping {
    /// The asset whose bytes the entity of `recordName` holds in `field`, if any.
    func heldAsset(_ recordName: String, field: String) throws -> HeldAsset? {
        try database.readSync { db in
            try db.fetchOne("SELECT checksum, digest FROM sync_assets WHERE record_name = ? AND field = ?", [recordName, field]) { row in
                HeldAsset(checksum: try row[0] as String, digest: try row[1] as String)
            }
        }
    }

    /// Records that the entity of `recordName` holds the bytes of an asset in `field`.
    func setHeldAsset(_ recordName: String, field: String, _ held: HeldAsset) throws {
        try database.writeSync { db in
            try db.execute(
                "INSERT OR REPLACE INTO sync_assets (record_name, field, checksum, digest) VALUES (?, ?, ?, ?)",
                [recordName, field, held.checksum, held.digest])
        }
    }
}
