// swift-tools-version:6.0
import PackageDescription

/// A product of the root package.
func stratus(_ name: String) -> Target.Dependency { .product(name: name, package: "Stratus") }

/// One libFuzzer target: an executable whose only source defines `LLVMFuzzerTestOneInput`.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies)
}

/// Stratus fuzz targets (libFuzzer), kept apart from the product: `make fuzz` builds them with
/// `--sanitize=fuzzer --sanitize=address` and runs each on its corpus under `Corpus/`.
/// The targets reach internal types (`@testable import`), so the build passes `-enable-testing`.
let package = Package(
    name: "StratusFuzz",
    dependencies: [.package(name: "Stratus", path: "..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver", stratus("StratusWire"), stratus("StratusHTTP")]),
        .target(
            name: "FuzzServerSupport",
            dependencies: [
                stratus("StratusHTTP"), stratus("StratusLogging"), stratus("StratusServer"), stratus("StratusServerSQLite"),
                stratus("StratusServerPostgres"),
            ]
        ),
        fuzzTarget("FuzzJSON", [stratus("StratusWire")]),
        fuzzTarget("FuzzRecordOperations", [stratus("StratusWire")]),
        fuzzTarget("FuzzQueryFilter", ["FuzzServerSupport", stratus("StratusServer"), stratus("StratusWire")]),
        fuzzTarget("FuzzServerToServer", [stratus("StratusCrypto"), stratus("StratusHTTP"), stratus("StratusServer")]),
        fuzzTarget("FuzzTokens", [stratus("StratusServer")]),
        fuzzTarget("FuzzRouter", ["FuzzServerSupport", stratus("StratusHTTP"), stratus("StratusWire")]),
        fuzzTarget("FuzzDocumentPath", [stratus("StratusDocuments")]),
    ]
)

for target in package.targets where target.name != "CFuzzerDriver" {
    target.swiftSettings = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
}
