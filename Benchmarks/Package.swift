// swift-tools-version:6.0
import PackageDescription

/// Stratus benchmarks: executables that measure the project against the physical
/// limit (bare libmicrohttpd, raw SQLite) in the same run. `make bench` runs them.
let package = Package(
    name: "StratusBenchmarks",
    dependencies: [.package(name: "Stratus", path: "..")],
    targets: [
        .target(name: "BenchSupport"),
        .executableTarget(name: "MHDHello", linkerSettings: [.linkedLibrary("microhttpd")]),
        .executableTarget(
            name: "HTTPBench",
            dependencies: [
                "BenchSupport",
                .product(name: "StratusHTTP", package: "Stratus"),
                .product(name: "StratusHTTPServer", package: "Stratus"),
                .product(name: "StratusLogging", package: "Stratus"),
                .product(name: "StratusMetrics", package: "Stratus"),
            ]
        ),
        .executableTarget(
            name: "RecordsBench",
            dependencies: [
                "BenchSupport",
                .product(name: "StratusHTTP", package: "Stratus"),
                .product(name: "StratusHTTPServer", package: "Stratus"),
                .product(name: "StratusLogging", package: "Stratus"),
                .product(name: "StratusMetrics", package: "Stratus"),
                .product(name: "StratusServer", package: "Stratus"),
                .product(name: "StratusServerSQLite", package: "Stratus"),
                .product(name: "StratusSQLite", package: "Stratus"),
                .product(name: "StratusWire", package: "Stratus"),
            ]
        ),
        .executableTarget(
            name: "PushBench",
            dependencies: [
                "BenchSupport",
                .product(name: "StratusHTTP", package: "Stratus"),
                .product(name: "StratusHTTPServer", package: "Stratus"),
                .product(name: "StratusLogging", package: "Stratus"),
                .product(name: "StratusServer", package: "Stratus"),
                .product(name: "StratusServerSQLite", package: "Stratus"),
                .product(name: "StratusWire", package: "Stratus"),
            ]
        ),
        .executableTarget(
            name: "StoreBench",
            dependencies: [
                .product(name: "StratusStore", package: "Stratus"),
                .product(name: "StratusSQLite", package: "Stratus"),
            ]
        ),
        .executableTarget(
            name: "AuthBench",
            dependencies: [
                "BenchSupport",
                .product(name: "StratusCrypto", package: "Stratus"),
                .product(name: "StratusHTTP", package: "Stratus"),
                .product(name: "StratusHTTPServer", package: "Stratus"),
                .product(name: "StratusLogging", package: "Stratus"),
                .product(name: "StratusServer", package: "Stratus"),
                .product(name: "StratusServerSQLite", package: "Stratus"),
            ]
        ),
        .executableTarget(
            name: "SDKBench",
            dependencies: [
                "BenchSupport",
                .product(name: "StratusClient", package: "Stratus"),
                .product(name: "StratusKeyValue", package: "Stratus"),
                .product(name: "StratusHTTP", package: "Stratus"),
                .product(name: "StratusHTTPServer", package: "Stratus"),
                .product(name: "StratusLogging", package: "Stratus"),
                .product(name: "StratusServer", package: "Stratus"),
                .product(name: "StratusServerSQLite", package: "Stratus"),
                .product(name: "StratusWire", package: "Stratus"),
            ]
        ),
    ]
)

for target in package.targets where target.name != "MHDHello" {
    target.swiftSettings = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
}
