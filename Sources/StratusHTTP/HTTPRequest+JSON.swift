public import Foundation

extension HTTPRequest {
    /// Decodes the body as JSON, whatever the `Content-Type` says.
    ///
    /// An empty body decodes as `{}`, so endpoints whose keys are all optional
    /// accept a bare POST. Failures become `BAD_REQUEST` errors whose reason
    /// names the problem and the path of the bad key.
    ///
    /// ```swift
    /// struct Rename: Decodable { var title: String }
    /// let body = try request.decodeJSON(Rename.self)
    /// ```
    ///
    /// - Throws: ``HTTPError`` with status 400.
    public func decodeJSON<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(HTTPError) -> T {
        let bytes = body.isEmpty ? Data("{}".utf8) : body
        do {
            return try decoder.decode(T.self, from: bytes)
        } catch let error as DecodingError {
            throw HTTPError.badRequest(Self.describe(error))
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.badRequest("could not decode the request body: \(error)")
        }
    }

    /// Says what a `DecodingError` means, naming the path of the bad key.
    ///
    /// For example `missing key 'recordType' at operations[0].record`.
    public static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)'" + location(context.codingPath)
        case .typeMismatch(let type, let context):
            return "expected \(jsonKind(type))" + location(context.codingPath) + detail(context)
        case .valueNotFound(let type, let context):
            return "expected \(jsonKind(type)) but found null" + location(context.codingPath)
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let underlying = context.underlyingError.map { ": \(String(describing: $0))" } ?? ""
                return "malformed JSON body (\(context.debugDescription)\(underlying))"
            }
            return "invalid value" + location(context.codingPath) + ": " + context.debugDescription
        @unknown default:
            return "could not decode the request body: \(error)"
        }
    }

    /// Renders a coding path as `operations[0].record.fields`.
    public static func renderPath(_ path: [any CodingKey]) -> String {
        var rendered = ""
        for key in path {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                rendered += "[\(index)]"
            } else {
                rendered += rendered.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return rendered
    }

    private static func location(_ path: [any CodingKey]) -> String {
        path.isEmpty ? " at the top level" : " at \(renderPath(path))"
    }

    private static func detail(_ context: DecodingError.Context) -> String {
        context.debugDescription.isEmpty ? "" : " (\(context.debugDescription))"
    }

    private static func jsonKind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default:
            if type is any Collection.Type && !(type is any StringProtocol.Type) {
                String(describing: type).hasPrefix("Dictionary") ? "an object" : "an array"
            } else {
                "\(type)"
            }
        }
    }
}
