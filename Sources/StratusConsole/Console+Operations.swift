import Foundation
import StratusHTTP
import StratusMetrics
import StratusServer

/// Containers, the server's request metrics and the live tail of its request log.
extension Console {
    func registerOperations(on router: inout Router) {
        read(&router, Self.basePath + "/api/containers") { [self] _, _ in
            try .json(try await records.read { try $0.containers() })
        }
        read(&router, Self.basePath + "/api/metrics") { [self] _, _ in
            .text(metrics?.prometheusText() ?? "", contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        read(&router, Self.basePath + "/api/requests") { [self] request, _ in
            try .json(requestLog.entries(after: request.query["after"].flatMap { Int64($0) } ?? 0))
        }
    }
}
