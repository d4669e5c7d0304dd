import StratusPostgres
import Testing

/// A PostgreSQL server that cannot be reached is an error that says so, never a crash: the failed
/// connection's handle was freed twice (once on the way out of `init`, again in `deinit`), and
/// `stratus serve --database` with a wrong address died of it.
@Suite struct PostgresUnreachableTests {
    @Test func aClosedPortIsUnableToConnectEveryTime() {
        for _ in 0..<3 {
            let error = #expect(throws: PostgresError.self) {
                _ = try PostgresConnection(url: "postgres://nobody@127.0.0.1:1/none?connect_timeout=5")
            }
            #expect(error?.code == .unableToConnect, "\(String(describing: error))")
        }
    }
}
