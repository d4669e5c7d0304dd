import BenchServer
import BenchSupport
import Foundation
import StratusClient
import StratusDocuments
import StratusLogging
import StratusServer
import StratusWire

// DocsBench: documents sync (StratusDocuments) against the real server in this process —
// 1,000 small files to a fresh device, and one 100 MB file up and down — next to a plain
// local copy of the same files measured in the same run.

let rounds = CommandLineOption.integer("rounds", default: 3)
let smallFiles = CommandLineOption.integer("files", default: 1_000)
let smallSize = CommandLineOption.integer("file-bytes", default: 2_048)
let bigMB = CommandLineOption.integer("big-mb", default: 100)
let lanes = CommandLineOption.integer("lanes", default: 4)
let containerID = "iCloud.com.example.DocsBench"

// MARK: Server

let root = FileManager.default.temporaryDirectory.appendingPathComponent("docs-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
let logger = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
/// Each round syncs in its own container, so a fresh device downloads only that round's files.
let server = try await InProcessServer.start(
    root: root, containers: (0..<(2 * rounds)).map { containerID + ".r\($0)" }, logger: logger
)
let serverURL = server.url

func device(round: Int) throws -> DocumentsContainer {
    let name = "device-" + UUID().uuidString.prefix(8)
    var clientConfiguration = ClientConfiguration()
    clientConfiguration.requestTimeout = .seconds(300)
    let container = StratusClient.Container(
        identifier: containerID + ".r\(round)", environment: .development, serverURL: serverURL, authentication: .none,
        configuration: clientConfiguration)
    var options = DocumentsContainer.Configuration()
    options.deviceName = name
    options.concurrentTransfers = lanes
    return try DocumentsContainer(
        directory: root.appendingPathComponent(name, isDirectory: true), container: container, configuration: options)
}

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = monotonicNanoseconds()
    try await body()
    return Double(monotonicNanoseconds() - start) / 1e9
}

func bytes(_ count: Int, seed: UInt64) -> Data {
    var state = seed | 1
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
        let words = raw.bindMemory(to: UInt64.self)
        for index in words.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            words[index] = state
        }
    }
    return data
}

func fmt(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

// MARK: 1. 1,000 small files to a fresh device

var upload: [Double] = []
var fresh: [Double] = []
var plain: [Double] = []
for round in 0..<rounds {
    let source = try device(round: round)
    for index in 0..<smallFiles {
        let path = "folder-\(index % 10)/file-\(round)-\(index).txt"
        try source.coordinateWriting(at: path) { try bytes(smallSize, seed: UInt64(round * 100_000 + index + 1)).write(to: $0) }
    }
    upload.append(try await seconds { try await source.sync() })
    let target = try device(round: round)
    fresh.append(try await seconds { try await target.sync() })
    let count = try await target.documents().count
    guard count == smallFiles else { throw BenchmarkFailure("fresh device has \(count) documents") }
    let copy = root.appendingPathComponent("plain-copy-\(round)")
    plain.append(
        try await seconds {
            for folder in 0..<10 {
                try FileManager.default.copyItem(
                    at: source.directory.appendingPathComponent("folder-\(folder)"), to: copy.appendingPathComponent("folder-\(folder)"))
            }
        })
    await source.close()
    await target.close()
}
print("concurrent transfers per device: \(lanes)")
print("1. \(smallFiles) small files (\(smallSize) bytes each, 10 folders), \(rounds) rounds")
print("   upload from the first device: median \(fmt(median(upload))) s (\(fmt(Double(smallFiles) / median(upload), 0)) files/s)")
print("   sync to a fresh device:       median \(fmt(median(fresh))) s (\(fmt(Double(smallFiles) / median(fresh), 0)) files/s)")
print("   plain local copy (cp -r):      median \(fmt(median(plain), 3)) s → sync is \(fmt(median(fresh) / median(plain), 0))× the copy")

// MARK: 2. One 100 MB file

var up: [Double] = []
var down: [Double] = []
var copyTimes: [Double] = []
let size = bigMB << 20
for round in 0..<rounds {
    let source = try device(round: rounds + round)
    let content = bytes(size, seed: UInt64(7 + round))
    try source.coordinateWriting(at: "big.bin") { try content.write(to: $0) }
    up.append(try await seconds { try await source.sync() })
    let target = try device(round: rounds + round)
    down.append(try await seconds { try await target.sync() })
    guard try Data(contentsOf: target.directory.appendingPathComponent("big.bin")) == content else {
        throw BenchmarkFailure("the 100 MB file differs on the fresh device")
    }
    let copy = root.appendingPathComponent("plain-big-\(round).bin")
    copyTimes.append(try await seconds { try FileManager.default.copyItem(at: source.directory.appendingPathComponent("big.bin"), to: copy) })
    try? FileManager.default.removeItem(at: copy)
    await source.close()
    await target.close()
}
let megabytes = Double(size) / 1_048_576
print("2. one \(bigMB) MB file (8 MB chunks), \(rounds) rounds")
print("   upload:   median \(fmt(median(up))) s = \(fmt(megabytes / median(up), 0)) MB/s")
print("   download: median \(fmt(median(down))) s = \(fmt(megabytes / median(down), 0)) MB/s")
print("   plain local copy: median \(fmt(median(copyTimes), 3)) s = \(fmt(megabytes / median(copyTimes), 0)) MB/s")
try await server.stop()
