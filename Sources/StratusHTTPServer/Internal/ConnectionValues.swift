import CMicroHTTPD
import StratusHTTP

/// Reads header fields and query arguments out of libmicrohttpd.
enum ConnectionValues {
    private final class Collector {
        var headers = HTTPHeaders()
        var query: [String: String] = [:]
    }

    /// The request's header fields and decoded query arguments.
    static func read(_ connection: OpaquePointer) -> (HTTPHeaders, [String: String]) {
        let collector = Collector()
        let raw = Unmanaged.passUnretained(collector).toOpaque()
        _ = MHD_get_connection_values_n(connection, .HEADER_KIND, headerIterator, raw)
        _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, queryIterator, raw)
        return withExtendedLifetime(collector) { (collector.headers, collector.query) }
    }

    /// The client's numeric IP address, or `nil` if libmicrohttpd does not know it.
    static func clientAddress(_ connection: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        stratus_mhd_client_address(connection, &buffer, buffer.count)
        let address = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return address.isEmpty ? nil : address
    }

    /// The server's own `address:port` the connection reached, or `nil` if unknown.
    static func localAddress(_ connection: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        stratus_mhd_local_address(connection, &buffer, buffer.count)
        let address = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return address.isEmpty ? nil : address
    }

    private static func string(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let pointer else { return "" }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    private static let headerIterator: MHD_KeyValueIteratorN = { cls, _, key, keyLength, value, valueLength in
        guard let cls else { return .NO }
        let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
        collector.headers.add(string(key, keyLength), string(value, valueLength))
        return .YES
    }

    private static let queryIterator: MHD_KeyValueIteratorN = { cls, _, key, keyLength, value, valueLength in
        guard let cls else { return .NO }
        let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
        collector.query[string(key, keyLength)] = string(value, valueLength)
        return .YES
    }
}
