#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

extension PostgresConnection {
    /// Calls `body` with the parameters as libpq takes them — each value's bytes, and their lengths
    /// and formats: text as a C string, a ``PostgresBindable/postgresBinary`` value as its bytes and
    /// length (lengths and formats are `nil` when every value is text) — and frees them afterwards.
    func withParameters<R>(_ parameters: [any PostgresBindable], _ body: (Parameters) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = []
        pointers.reserveCapacity(parameters.count)
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { for pointer in pointers { free(pointer) } }
        for (index, parameter) in parameters.enumerated() {
            guard let binary = parameter.postgresBinary else {
                pointers.append(parameter.postgresText.flatMap { strdup($0) })
                continue
            }
            if formats.isEmpty {
                lengths = Array(repeating: 0, count: parameters.count)
                formats = Array(repeating: 0, count: parameters.count)
            }
            guard let copy = malloc(max(1, binary.count)) else { preconditionFailure("no memory for a \(binary.count)-byte parameter") }
            UnsafeMutableRawBufferPointer(start: copy, count: binary.count).copyBytes(from: binary)
            pointers.append(copy.assumingMemoryBound(to: CChar.self))
            lengths[index] = Int32(binary.count)
            formats[index] = 1
        }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(
                            Parameters(
                                count: Int32(values.count), values: UnsafePointer(values.baseAddress),
                                lengths: formats.isEmpty ? nil : lengths.baseAddress, formats: formats.isEmpty ? nil : formats.baseAddress
                            )
                        )
                    }
                }
            }
        }
    }

    /// A statement's parameters as libpq's `PQexecParams` and `PQsendQueryParams` take them.
    struct Parameters {
        var count: Int32
        var values: UnsafePointer<UnsafePointer<CChar>?>?
        var lengths: UnsafePointer<Int32>?
        var formats: UnsafePointer<Int32>?
    }
}
