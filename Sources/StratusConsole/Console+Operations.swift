import Foundation
import StratusHTTP
import StratusMetrics
import StratusServer

/// Containers and the server's request metrics.
extension Console {
    func registerOperations(on router: inout Router) {
        read(&router, Self.basePath + "/api/containers") { [self] _, _ in
            try .json(try await records.read { try $0.containers() })
        }
        read(&router, Self.basePath + "/api/metrics") { [self] _, _ in
            .text(metrics?.prometheusText() ?? "", contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
