// swift-tools-version: 6.2
import PackageDescription

/// Settings shared by every target: Swift 6 language mode with complete strict concurrency.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "ProcedureKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PKCore", targets: ["PKCore"]),
        .library(name: "PKConditions", targets: ["PKConditions"]),
        .library(name: "PKCapabilities", targets: ["PKCapabilities"]),
        .library(name: "PKTesting", targets: ["PKTesting"]),
        .library(name: "PKObservers", targets: ["PKObservers"]),
        .library(name: "PKNetwork", targets: ["PKNetwork"]),
        .library(name: "PKProcess", targets: ["PKProcess"]),
        // Durable procedures on PostgreSQL: empty unless the `Postgres` trait is enabled (see `traits` below).
        .library(name: "PKPostgres", targets: ["PKPostgres"]),
        .executable(name: "HelloProcedure", targets: ["HelloProcedure"]),
        .executable(name: "ImagePipeline", targets: ["ImagePipeline"]),
        .executable(name: "WeatherReport", targets: ["WeatherReport"]),
        .executable(name: "TraceDemo", targets: ["TraceDemo"]),
        .executable(name: "GracefulShutdown", targets: ["GracefulShutdown"]),
        .executable(name: "CapabilityGate", targets: ["CapabilityGate"]),
        .executable(name: "NetworkFetch", targets: ["NetworkFetch"]),
        .executable(name: "ServerQuickstart", targets: ["ServerQuickstart"]),
        .executable(name: "DurableFleet", targets: ["DurableFleet"]),
        .executable(name: "ProcessPipeline", targets: ["ProcessPipeline"]),
        .executable(name: "pk-jobs", targets: ["PKJobs"]),
    ],
    // `Postgres` builds PKPostgres against the system's libpq (Debian: libpq-dev). Off by default, so that the
    // package builds and tests on a machine without libpq; users enable it on their dependency
    // (`.package(url: ..., from: ..., traits: ["Postgres"])`) and we with `--traits Postgres` (Scripts/test.sh).
    traits: [
        .trait(name: "Postgres", description: "Builds PKPostgres (durable procedures on PostgreSQL) against libpq.")
    ],
    targets: [
        // MARK: - Libraries
        // The maintainers' notes beside the code (ENGINE.md, LOCKING.md) are not part of the build.
        .target(
            name: "PKCore", exclude: ["ENGINE.md", "Locking/LOCKING.md"], swiftSettings: swiftSettings),
        .target(name: "PKConditions", dependencies: ["PKCore"], swiftSettings: swiftSettings),
        .target(
            name: "PKCapabilities", dependencies: ["PKCore", "PKConditions"], swiftSettings: swiftSettings),
        // Its durable-job helpers are under `#if Postgres`; without the trait PKPostgres is an empty module.
        .target(
            name: "PKTesting", dependencies: ["PKCore", "PKCapabilities", "PKNetwork", "PKPostgres"],
            swiftSettings: swiftSettings),
        .target(name: "PKObservers", dependencies: ["PKCore"], swiftSettings: swiftSettings),
        .target(name: "PKNetwork", dependencies: ["PKCore", "PKObservers"], swiftSettings: swiftSettings),
        .target(name: "PKProcess", dependencies: ["PKCore"], swiftSettings: swiftSettings),
        // An HTTP/1.1 server for pk-jobs' dashboard: a target, not a product (it is not a public library yet).
        .target(name: "PKHTTPServer", dependencies: ["PKCore"], swiftSettings: swiftSettings),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Its code is under `#if Postgres`; without the trait the module is empty and libpq is not needed.
        .target(
            name: "PKPostgres",
            dependencies: ["PKCore", "PKObservers", .target(name: "CLibPQ", condition: .when(traits: ["Postgres"]))],
            swiftSettings: swiftSettings),

        // MARK: - Tools
        // The dashboard behind `pk-jobs serve`: routes, page and JSON API on PKHTTPServer (a target, not a product).
        .target(
            name: "PKJobsDashboard", dependencies: ["PKCore", "PKPostgres", "PKHTTPServer"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "PKJobs", dependencies: ["PKPostgres", "PKHTTPServer", "PKJobsDashboard"],
            swiftSettings: swiftSettings),

        // MARK: - Benchmarks
        .executableTarget(
            name: "PKBenchmarks",
            dependencies: ["PKCore", "PKConditions", "PKObservers", "PKNetwork", "PKPostgres", "PKProcess"],
            swiftSettings: swiftSettings),

        // MARK: - Examples
        .executableTarget(
            name: "HelloProcedure", dependencies: ["PKCore"], path: "Examples/HelloProcedure",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "ImagePipeline", dependencies: ["PKCore", "PKObservers"], path: "Examples/ImagePipeline",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "WeatherReport", dependencies: ["PKCore"], path: "Examples/WeatherReport",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "TraceDemo", dependencies: ["PKCore", "PKObservers"], path: "Examples/TraceDemo",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "GracefulShutdown", dependencies: ["PKCore", "PKObservers"], path: "Examples/GracefulShutdown",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "CapabilityGate", dependencies: ["PKCore", "PKConditions", "PKCapabilities"],
            path: "Examples/CapabilityGate", swiftSettings: swiftSettings),
        .executableTarget(
            name: "NetworkFetch", dependencies: ["PKCore", "PKNetwork"], path: "Examples/NetworkFetch",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "ServerQuickstart", dependencies: ["PKCore", "PKObservers"], path: "Examples/ServerQuickstart",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "DurableFleet", dependencies: ["PKCore", "PKObservers", "PKPostgres"], path: "Examples/DurableFleet",
            swiftSettings: swiftSettings),

        .executableTarget(
            name: "ProcessPipeline", dependencies: ["PKCore", "PKObservers", "PKProcess"],
            path: "Examples/ProcessPipeline", swiftSettings: swiftSettings),

        // MARK: - Tests
        .testTarget(name: "PKCoreTests", dependencies: ["PKCore", "PKTesting"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PKConditionsTests", dependencies: ["PKConditions", "PKTesting"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PKStressTests", dependencies: ["PKCore", "PKConditions", "PKObservers", "PKTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PKObserversTests", dependencies: ["PKObservers", "PKTesting", "GracefulShutdown"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PKMigrationTests",
            dependencies: ["PKCore", "PKConditions", "PKNetwork", "PKObservers", "PKTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PKCapabilitiesTests", dependencies: ["PKCapabilities", "PKConditions", "PKTesting"],
            swiftSettings: swiftSettings),
        // The HTTP test server (a python3 script) is found through #filePath, not bundled as a resource.
        .testTarget(
            name: "PKNetworkTests", dependencies: ["PKNetwork", "PKObservers", "PKTesting"], exclude: ["Fixtures"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PKProcessTests", dependencies: ["PKProcess", "PKObservers", "PKTesting", "ProcessPipeline"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PKHTTPServerTests", dependencies: ["PKHTTPServer", "PKTesting"], swiftSettings: swiftSettings),
        // Its suites run only when built with the `Postgres` trait and given a server (Scripts/postgres.sh).
        .testTarget(
            name: "PKPostgresTests",
            dependencies: [
                "PKPostgres", "PKObservers", "PKTesting", "DurableFleet", "PKHTTPServer", "PKJobsDashboard",
            ],
            swiftSettings: swiftSettings),
    ]
)
