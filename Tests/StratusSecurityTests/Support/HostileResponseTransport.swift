import Foundation
import StratusClient
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport in front of the real server that plays a malicious server: it rewrites the JSON of
/// chosen responses and records every request body it forwards.
final class HostileResponseTransport: HTTPTransport {
    /// Changes a decoded JSON response of an endpoint whose path ends with the given suffix.
    typealias Rewrite = @Sendable (inout [String: Any]) -> Void

    private let inner = DefaultTransport.make()
    private let rewrites: [String: Rewrite]
    private let sent = Mutex<[Data]>([])

    init(rewriting rewrites: [String: Rewrite]) {
        self.rewrites = rewrites
    }

    /// Every request body sent so far (record saves, asset uploads…).
    var sentBodies: [Data] { sent.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        sent.withLock { $0.append(request.body) }
        var response = try await inner.send(request)
        let path = request.url.path
        guard response.status == 200, let rewrite = rewrites.first(where: { path.hasSuffix($0.key) })?.value,
            var json = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        else { return response }
        rewrite(&json)
        response.body = try JSONSerialization.data(withJSONObject: json)
        return response
    }

    /// A rewrite that replaces the value of every `ASSETID` field of every record with an asset
    /// dictionary holding only `downloadURL`.
    static func replacingAssets(withDownloadURL url: String) -> Rewrite {
        { json in
            guard var records = json["records"] as? [[String: Any]] else { return }
            for index in records.indices {
                guard var fields = records[index]["fields"] as? [String: Any] else { continue }
                for (name, value) in fields {
                    guard var field = value as? [String: Any], field["type"] as? String == "ASSETID" else { continue }
                    field["value"] = ["downloadURL": url]
                    fields[name] = field
                }
                records[index]["fields"] = fields
            }
            json["records"] = records
        }
    }
}
