import Foundation

/// A POSIX `ustar` archive of regular files, written and read by hand (the format is small, and
/// `tar -tvf` lists what Stratus writes).
///
/// Only what backups need: regular files with names of at most 100 bytes, mode 0600. The reader
/// checks every header's checksum and refuses anything else (links, directories, long names), so
/// an archive from elsewhere can never make the restore write outside its staging folder.
enum TarArchive {
    static let blockSize = 512
    /// The largest entry the reader accepts (the 11 octal digits of `size`).
    static let maximumEntrySize: Int64 = 0o77777777777

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The header block of one regular file.
    static func header(name: String, size: Int64, modified: Date) throws -> Data {
        let nameBytes = Array(name.utf8)
        guard !nameBytes.isEmpty, nameBytes.count <= 100 else { throw Failure(description: "tar entry name '\(name)' is longer than 100 bytes") }
        guard size >= 0, size <= maximumEntrySize else { throw Failure(description: "tar entry '\(name)' is too large (\(size) bytes)") }
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ bytes: [UInt8], at offset: Int) { block.replaceSubrange(offset..<(offset + bytes.count), with: bytes) }
        func octal(_ value: Int64, width: Int) -> [UInt8] {
            Array(String(value, radix: 8).leftPadded(to: width - 1).utf8) + [0]
        }
        put(nameBytes, at: 0)
        put(octal(0o600, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(Int64(max(0, modified.timeIntervalSince1970)), width: 12), at: 136)
        put(Array("        ".utf8), at: 148)
        block[156] = UInt8(ascii: "0")
        put(Array("ustar".utf8) + [0] + Array("00".utf8), at: 257)
        let checksum = block.reduce(0) { $0 + Int64($1) }
        put(Array(String(checksum, radix: 8).leftPadded(to: 6).utf8) + [0, UInt8(ascii: " ")], at: 148)
        return Data(block)
    }

    /// Zero bytes that pad an entry of `size` bytes to a whole block.
    static func padding(after size: Int64) -> Data {
        let remainder = Int(size % Int64(blockSize))
        return Data(count: remainder == 0 ? 0 : blockSize - remainder)
    }

    /// The two zero blocks that end an archive.
    static var trailer: Data { Data(count: 2 * blockSize) }

    /// One entry's header as the reader found it.
    struct Entry {
        var name: String
        var size: Int64
    }

    /// Parses a header block: the entry, or `nil` for the zero block that ends the archive.
    ///
    /// - Throws: ``Failure`` for a bad checksum, a type other than a regular file, or a malformed field.
    static func parse(_ block: Data) throws -> Entry? {
        let bytes = [UInt8](block)
        guard bytes.count == blockSize else { throw Failure(description: "the archive ends inside a header") }
        if bytes.allSatisfy({ $0 == 0 }) { return nil }
        func field(_ offset: Int, _ length: Int) -> [UInt8] {
            Array(bytes[offset..<(offset + length)].prefix { $0 != 0 })
        }
        func octal(_ offset: Int, _ length: Int, _ what: String) throws -> Int64 {
            let text = String(decoding: field(offset, length), as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, let value = Int64(text, radix: 8) else { throw Failure(description: "the archive's \(what) field is not octal") }
            return value
        }
        var summed = bytes
        summed.replaceSubrange(148..<156, with: [UInt8](repeating: UInt8(ascii: " "), count: 8))
        guard try octal(148, 8, "checksum") == summed.reduce(0, { $0 + Int64($1) }) else {
            throw Failure(description: "a header's checksum does not match: the archive is damaged or not a Stratus backup")
        }
        guard bytes[156] == UInt8(ascii: "0") || bytes[156] == 0 else {
            throw Failure(description: "the archive holds an entry that is not a regular file (type '\(Character(UnicodeScalar(bytes[156])))')")
        }
        guard field(345, 155).isEmpty else { throw Failure(description: "the archive holds an entry with a long name, which backups never write") }
        let name = String(decoding: field(0, 100), as: UTF8.self)
        let size = try octal(124, 12, "size")
        return Entry(name: name, size: size)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
