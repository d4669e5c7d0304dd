// swift-tools-version:6.0
import PackageDescription

/// Settings every Swift target shares (STYLE.md, style-anchors rule 2).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Stratus",
    // What `Synchronization` (Mutex, Atomic) and Swift Testing need; the client products build there
    // with nothing but the OS (Documentation/0014).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "stratus", targets: ["StratusCLI"]),
        .library(name: "StratusWire", targets: ["StratusWire"]),
        .library(name: "StratusSQL", targets: ["StratusSQL"]),
        .library(name: "StratusSQLite", targets: ["StratusSQLite"]),
        .library(name: "StratusPostgres", targets: ["StratusPostgres"]),
        .library(name: "StratusCrypto", targets: ["StratusCrypto"]),
        .library(name: "StratusServerCrypto", targets: ["StratusServerCrypto"]),
        .library(name: "StratusHTTP", targets: ["StratusHTTP"]),
        .library(name: "StratusHTTPServer", targets: ["StratusHTTPServer"]),
        .library(name: "StratusLogging", targets: ["StratusLogging"]),
        .library(name: "StratusMetrics", targets: ["StratusMetrics"]),
        .library(name: "StratusTesting", targets: ["StratusTesting"]),
        .library(name: "StratusServer", targets: ["StratusServer"]),
        .library(name: "StratusServerSQL", targets: ["StratusServerSQL"]),
        .library(name: "StratusServerSQLite", targets: ["StratusServerSQLite"]),
        .library(name: "StratusServerPostgres", targets: ["StratusServerPostgres"]),
        .library(name: "StratusServerAPNs", targets: ["StratusServerAPNs"]),
        .library(name: "StratusConsole", targets: ["StratusConsole"]),
        .library(name: "StratusClient", targets: ["StratusClient"]),
        .library(name: "StratusStore", targets: ["StratusStore"]),
        .library(name: "StratusSync", targets: ["StratusSync"]),
        .library(name: "StratusStoreSync", targets: ["StratusStoreSync"]),
        .library(name: "StratusKeyValue", targets: ["StratusKeyValue"]),
        .library(name: "StratusDocuments", targets: ["StratusDocuments"]),
    ],
    targets: [
        // Layer 0: C libraries from Debian, one system-library target each.
        // No pkg-config: sqlite3.h and libsqlite3 are where the compiler looks, in every Apple SDK (the
        // client links the OS's SQLite) and on Debian (libsqlite3-dev, which Scripts/install-deps.sh installs).
        .systemLibrary(name: "CSQLite"),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Makes Mutex hand-overs visible to ThreadSanitizer; empty unless built with --sanitize=thread.
        .target(name: "CSanitizerHooks"),

        // Layer 1: observability.
        .target(name: "StratusLogging"),
        .target(name: "StratusMetrics"),

        // Layer 2: wire model, drivers, crypto, HTTP without I/O.
        .target(name: "StratusWire"),
        // The SQL vocabulary both drivers implement: interpolated SQL with bound values, rows, the executor.
        .target(name: "StratusSQL"),
        .target(name: "StratusSQLite", dependencies: ["CSQLite", "StratusSQL", "StratusLogging"]),
        .target(name: "StratusPostgres", dependencies: ["CLibPQ", "StratusSQL", "StratusLogging"]),
        // Client-side crypto: CryptoKit on Apple platforms, OpenSSL's libcrypto on Linux only.
        .target(name: "StratusCrypto", dependencies: [.target(name: "COpenSSL", condition: .when(platforms: [.linux]))]),
        // Server-only crypto (Argon2id, sealing, HKDF, signature checks): never in a client's graph.
        .target(
            name: "StratusServerCrypto",
            dependencies: ["StratusCrypto", "CSodium", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))]
        ),
        .target(name: "StratusHTTP", dependencies: ["StratusLogging"]),
        // An HTTP client on libcurl's multi interface, driven by a thread of its own: the server's APNs
        // transport and the SDK's transport on Linux (Documentation/0004, 0014), never on Apple platforms.
        .target(name: "StratusCurl", dependencies: ["CCurl"]),

        // Layer 3: the libmicrohttpd transport.
        .target(name: "StratusHTTPServer", dependencies: ["StratusHTTP", "CMicroHTTPD", "StratusLogging", "StratusMetrics"]),

        // Layer 3: the CloudKit service, independent of storage engines.
        .target(
            name: "StratusServer",
            dependencies: ["StratusWire", "StratusHTTP", "StratusCrypto", "StratusServerCrypto", "StratusLogging", "StratusMetrics"]
        ),

        // Layer 3: the client SDK; shares only the wire model with the server.
        .target(
            name: "StratusClient",
            dependencies: [
                "StratusWire", "StratusCrypto", "StratusLogging", .target(name: "StratusCurl", condition: .when(platforms: [.linux])),
            ]
        ),

        // Layer 4: the key-value store (NSUbiquitousKeyValueStore) over the SDK.
        .target(name: "StratusKeyValue", dependencies: ["StratusClient", "StratusWire", "StratusSQLite", "StratusLogging"]),

        // Layer 4: document/file sync with conflict versions over the SDK.
        .target(
            name: "StratusDocuments",
            dependencies: ["StratusClient", "StratusWire", "StratusSQLite", "StratusCrypto", "StratusLogging"]
        ),

        // Layer 5: the CLI's client commands (records, zones, changes, kv, watch), testable as a library.
        .target(name: "StratusClientCommands", dependencies: ["StratusClient", "StratusKeyValue", "StratusDocuments", "StratusWire"]),

        // Layer 3: the local object store (Core Data-like), independent of networks and records.
        .target(name: "StratusStore", dependencies: ["StratusSQLite", "StratusLogging"]),

        // Layer 4: the sync framework on top of the client SDK (StratusStoreSync bridges it to StratusStore).
        .target(
            name: "StratusSync",
            dependencies: ["StratusClient", "StratusWire", "StratusSQLite", "StratusCrypto", "StratusLogging"]
        ),

        // Layer 5: syncs StratusStore entities through StratusSync (the only module that imports both).
        .target(
            name: "StratusStoreSync",
            dependencies: ["StratusStore", "StratusSync", "StratusClient", "StratusLogging"]
        ),

        // Layer 4: storage back ends; the stores that are the same on both are written once, over StratusSQL.
        .target(name: "StratusServerSQL", dependencies: ["StratusServer", "StratusWire", "StratusSQL"]),
        .target(
            name: "StratusServerSQLite",
            dependencies: ["StratusServer", "StratusServerSQL", "StratusWire", "StratusSQL", "StratusSQLite", "StratusLogging"]
        ),

        .target(
            name: "StratusServerPostgres",
            dependencies: [
                "StratusServer", "StratusServerSQL", "StratusWire", "StratusSQL", "StratusPostgres", "StratusLogging",
            ]
        ),

        // Layer 4: APNs delivery over HTTP/2 (libcurl with nghttp2), composed in by `stratus serve`.
        .target(name: "StratusServerAPNs", dependencies: ["StratusServer", "StratusCurl", "StratusLogging"]),

        // Layer 4: the web console at /console (Documentation/0022-console.md): its pages are files in
        // Resources/, embedded as Swift source by Scripts/embed-console-resources.swift (make build runs it).
        .target(
            name: "StratusConsole",
            dependencies: ["StratusServer", "StratusHTTP", "StratusWire", "StratusCrypto", "StratusServerCrypto", "StratusLogging", "StratusMetrics"],
            exclude: ["Resources"]
        ),

        // Layer 5: composition and test support.
        .target(
            name: "StratusTesting",
            dependencies: [
                "StratusServerCrypto",
                "StratusHTTP", "StratusHTTPServer", "StratusPostgres", "StratusLogging", "StratusServer",
                "StratusServerSQLite", "StratusServerPostgres", "StratusServerAPNs", "StratusWire", "StratusCrypto", "StratusClient",
                "CSanitizerHooks",
            ]
        ),
        .executableTarget(
            name: "StratusCLI",
            dependencies: [
                "StratusHTTP", "StratusHTTPServer", "StratusWire", "StratusSQLite", "StratusPostgres", "StratusCrypto",
                "StratusLogging", "StratusMetrics", "StratusServer", "StratusServerSQLite", "StratusServerPostgres",
                "StratusServerAPNs", "StratusClientCommands", "StratusClient", "StratusStore", "StratusSync", "StratusStoreSync",
                "StratusConsole",
                // Not imported: linked so a ThreadSanitizer build of the executable sees Mutex hand-overs (0016).
                "CSanitizerHooks",
            ]
        ),

        // The seed's samples as an app writes them (tests drive them): Examples/Seed.
        .target(
            name: "StratusExamples",
            dependencies: ["StratusClient", "StratusStore", "StratusSync", "StratusStoreSync", "StratusKeyValue"],
            path: "Examples/Seed"
        ),
        // Every Swift example of the doc comments and the guides, as written (Examples/DocComments, made by
        // Scripts/extract-doc-examples.swift before each build of `make build` and `make test`).
        .target(
            name: "StratusDocExamples",
            dependencies: [
                "StratusWire", "StratusSQL", "StratusSQLite", "StratusPostgres", "StratusCrypto", "StratusServerCrypto", "StratusHTTP", "StratusHTTPServer",
                "StratusLogging", "StratusMetrics", "StratusTesting", "StratusServer", "StratusServerSQL", "StratusServerSQLite", "StratusServerPostgres",
                "StratusClient", "StratusStore", "StratusSync", "StratusStoreSync", "StratusKeyValue", "StratusDocuments", "StratusClientCommands",
                "StratusConsole",
            ],
            path: "Examples/DocComments"
        ),

        // Tests.
        .testTarget(name: "StratusLoggingTests", dependencies: ["StratusLogging"]),
        .testTarget(name: "StratusMetricsTests", dependencies: ["StratusMetrics"]),
        .testTarget(name: "StratusWireTests", dependencies: ["StratusWire", "StratusTesting"], resources: [.copy("Fixtures")]),
        .testTarget(name: "StratusSQLiteTests", dependencies: ["StratusSQLite", "StratusSQL", "StratusTesting"]),
        .testTarget(name: "StratusCryptoTests", dependencies: ["StratusCrypto", "StratusServerCrypto", "StratusTesting"]),
        .testTarget(
            name: "StratusPostgresTests",
            dependencies: [
                "StratusPostgres", "StratusSQL", "StratusSQLite", "StratusServerPostgres", "StratusServer", "StratusWire",
                "StratusTesting",
            ]
        ),
        .testTarget(
            name: "StratusServerTests",
            dependencies: [
                "StratusServer", "StratusServerSQL", "StratusServerSQLite", "StratusServerAPNs", "StratusWire", "StratusHTTP", "StratusTesting",
                "StratusLogging", "StratusSQL", "StratusCrypto", "StratusServerCrypto", "StratusMetrics",
            ]
        ),
        .testTarget(name: "StratusStoreTests", dependencies: ["StratusStore", "StratusTesting"]),
        .testTarget(
            name: "StratusAuthTests",
            dependencies: [
                "StratusServer", "StratusServerSQLite", "StratusWire", "StratusHTTP", "StratusTesting", "StratusCrypto", "StratusClient",
                "StratusServerCrypto",
                "StratusLogging",
            ]
        ),
        .testTarget(name: "StratusHTTPTests", dependencies: ["StratusHTTP", "StratusWire", "StratusLogging"]),
        .testTarget(
            name: "StratusHTTPServerTests",
            dependencies: ["StratusHTTPServer", "StratusHTTP", "StratusTesting"]
        ),
        .testTarget(
            name: "StratusClientCommandsTests",
            dependencies: ["StratusClientCommands", "StratusClient", "StratusTesting", "StratusServer", "StratusWire"]
        ),
        .testTarget(
            name: "StratusKeyValueTests",
            dependencies: ["StratusKeyValue", "StratusClient", "StratusTesting", "StratusServer", "StratusWire"]
        ),
        .testTarget(
            name: "StratusClientTests",
            dependencies: [
                "StratusClient", "StratusTesting", "StratusWire", "StratusCrypto", "StratusHTTP", "StratusServer", "StratusServerCrypto",
            ]
        ),
        .testTarget(
            name: "StratusDocumentsTests",
            dependencies: ["StratusDocuments", "StratusClient", "StratusClientCommands", "StratusTesting", "StratusWire", "StratusServer"]
        ),
        .testTarget(
            name: "StratusStoreSyncTests",
            dependencies: [
                "StratusStoreSync", "StratusStore", "StratusSync", "StratusClient", "StratusTesting", "StratusWire", "StratusLogging",
                "StratusExamples",
            ]
        ),
        .testTarget(
            name: "StratusSecurityTests",
            dependencies: [
                "StratusServer", "StratusServerSQLite", "StratusServerPostgres", "StratusWire", "StratusHTTP", "StratusHTTPServer",
                "StratusTesting", "StratusCrypto", "StratusClient", "StratusDocuments", "StratusClientCommands", "StratusLogging",
                "StratusServerCrypto",
                "StratusKeyValue",
                "StratusMetrics",
            ]
        ),
        .testTarget(
            name: "StratusConsoleTests",
            dependencies: [
                "StratusConsole", "StratusServer", "StratusServerSQL", "StratusServerSQLite", "StratusServerPostgres", "StratusHTTP",
                "StratusWire", "StratusTesting", "StratusMetrics", "StratusLogging", "StratusServerCrypto", "StratusCrypto", "StratusSQLite",
            ]
        ),
        .testTarget(
            name: "StratusSyncTests",
            dependencies: [
                "StratusSync", "StratusClient", "StratusServer", "StratusTesting", "StratusWire", "StratusLogging",
            ]
        ),
    ]
)

for target in package.targets where target.type != .system && target.name != "CSanitizerHooks" {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}

// The examples build as an app's code does: without MemberImportVisibility, which apps do not turn on.
for target in package.targets where target.name == "StratusExamples" {
    target.swiftSettings = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
}
// Doc examples show one call each, so their results often go unused: only errors count there.
for target in package.targets where target.name == "StratusDocExamples" {
    target.swiftSettings = [.unsafeFlags(["-suppress-warnings"])]
}
