// swift-tools-version:6.0
import PackageDescription

/// A product of the root package.
func stratus(_ name: String) -> Target.Dependency { .product(name: name, package: "Stratus") }

/// What every benchmark that runs a real server in-process needs.
let serverStack: [Target.Dependency] = [
    "BenchSupport", "BenchServer", stratus("StratusHTTP"), stratus("StratusHTTPServer"), stratus("StratusLogging"), stratus("StratusServer"),
    stratus("StratusServerSQLite"), stratus("StratusWire"),
]

/// Stratus benchmarks: executables that measure the project against the physical
/// limit (bare libmicrohttpd, raw SQLite) in the same run. `make bench` runs them.
let package = Package(
    name: "StratusBenchmarks",
    dependencies: [.package(name: "Stratus", path: "..")],
    targets: [
        .target(name: "BenchSupport"),
        .target(
            name: "BenchServer",
            dependencies: [
                stratus("StratusHTTP"), stratus("StratusHTTPServer"), stratus("StratusLogging"), stratus("StratusServer"),
                stratus("StratusServerSQLite"),
            ]
        ),
        .executableTarget(name: "MHDHello", linkerSettings: [.linkedLibrary("microhttpd")]),
        .executableTarget(
            name: "HTTPBench",
            dependencies: ["BenchSupport", stratus("StratusHTTP"), stratus("StratusHTTPServer"), stratus("StratusLogging"), stratus("StratusMetrics")]
        ),
        .executableTarget(
            name: "RecordsBench",
            dependencies: serverStack + [stratus("StratusMetrics"), stratus("StratusSQLite"), stratus("StratusServerPostgres"), stratus("StratusPostgres")]
        ),
        .executableTarget(
            name: "PushBench", dependencies: serverStack + [stratus("StratusServerAPNs"), stratus("StratusServerPostgres"), stratus("StratusTesting")]
        ),
        .executableTarget(name: "StoreBench", dependencies: [stratus("StratusStore"), stratus("StratusSQLite")]),
        .executableTarget(name: "AuthBench", dependencies: serverStack + [stratus("StratusCrypto"), stratus("StratusServerCrypto")]),
        .executableTarget(
            name: "SyncBench",
            dependencies: serverStack + [stratus("StratusClient"), stratus("StratusStore"), stratus("StratusSync"), stratus("StratusStoreSync")]
        ),
        .executableTarget(name: "SDKBench", dependencies: serverStack + [stratus("StratusClient"), stratus("StratusKeyValue")]),
        .executableTarget(name: "DocsBench", dependencies: serverStack + [stratus("StratusClient"), stratus("StratusDocuments")]),
        .executableTarget(name: "BackupBench", dependencies: serverStack),
        // The soak runs the real `stratus` executable (a product of the root package) and talks HTTP only.
        .executableTarget(name: "SoakBench", dependencies: ["BenchSupport"]),
    ]
)

for target in package.targets where target.name != "MHDHello" {
    target.swiftSettings = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
}
