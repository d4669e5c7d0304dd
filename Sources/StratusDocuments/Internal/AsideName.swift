/// The names a document moved aside takes: `folder/name (device).ext`, then `name (device 2).ext` and so on.
///
/// The device name comes from the other device's record: it is reduced to characters a file name can hold
/// (no `/`, no control characters) and the stem shortened so the name stays a valid component. Pure: the
/// container picks the first candidate that no document and no file holds.
enum AsideName {
    /// The name for `attempt` (1 for the plain device tag) of moving `path` aside for `device`.
    static func candidate(near path: String, device: String, attempt: Int) -> String {
        let folder = DocumentPath.parent(of: path)
        let name = String(path.dropFirst(folder.isEmpty ? 0 : folder.count + 1))
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        // An "extension" too long to keep beside the tag is part of the name: the name is shortened instead.
        let split = dot.flatMap { name[$0...].utf8.count <= longestKeptExtension ? $0 : nil }
        let stem = split.map { String(name[..<$0]) } ?? name
        let suffix = split.map { String(name[$0...]) } ?? ""
        let label = String(
            String.UnicodeScalarView(
                device.unicodeScalars.filter { $0 != "/" && $0 != "\\" && $0.properties.generalCategory != .control }.prefix(64)))
        let tag = attempt == 1 ? " (\(label))" : " (\(label) \(attempt))"
        let room = DocumentPath.maximumComponentBytes - tag.utf8.count - suffix.utf8.count
        let candidate = prefix(of: stem, bytes: max(1, room)) + tag + suffix
        return folder.isEmpty ? candidate : folder + "/" + candidate
    }

    /// The longest extension (with its dot, in bytes) kept whole when a name is shortened to fit a tag.
    private static let longestKeptExtension = 32

    /// The longest start of `text` that fits in `bytes` bytes of UTF-8 (whole characters).
    private static func prefix(of text: String, bytes: Int) -> String {
        var used = 0
        var kept = ""
        for character in text {
            used += character.utf8.count
            guard used <= bytes else { break }
            kept.append(character)
        }
        return kept
    }
}
