import Foundation
import StratusLogging

/// `stratus serve --backup-every 6h --backup-keep 14`: a backup of the running server at a fixed
/// interval into a folder, keeping the newest few.
///
/// Each backup is the same as `stratus backup` (``BackupCommand/backup(to:from:assets:)``), run on
/// a thread of its own so the snapshot's reads never hold a thread of Swift's cooperative pool.
/// Archives are named `stratus-<UTC time>.tar`, so their names sort by age; only files of that
/// shape are ever removed.
struct ScheduledBackups: Sendable {
    var interval: Duration
    var keep: Int
    var folder: URL
    var dataDirectory: DataDirectory
    var assets: URL

    /// The flags that configure it.
    static let flags: Set<String> = ["backup-every", "backup-keep", "backup-directory"]

    /// Reads the flags; `nil` without `--backup-every`.
    ///
    /// - Throws: ``CLIError`` for a malformed interval or a count out of range.
    static func configured(_ options: Options, dataDirectory: DataDirectory, assets: URL) throws -> ScheduledBackups? {
        let every = options.string("backup-every", default: "")
        guard !every.isEmpty else { return nil }
        guard let interval = parseInterval(every) else {
            throw CLIError("--backup-every: '\(every)' is not an interval such as 6h, 30m or 90s (at least 1s)")
        }
        let keep = try options.integer("backup-keep", default: 14, in: 1...10_000)
        let folder = URL(
            fileURLWithPath: options.string("backup-directory", default: dataDirectory.url.appendingPathComponent("backups").path), isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return ScheduledBackups(interval: interval, keep: keep, folder: folder, dataDirectory: dataDirectory, assets: assets)
    }

    /// `90s`, `30m`, `6h`, `2d` as a duration; `nil` for anything else.
    static func parseInterval(_ text: String) -> Duration? {
        guard let unit = text.last, let value = Int64(text.dropLast()), value > 0, value < 1_000_000 else { return nil }
        switch unit {
        case "s": return .seconds(value)
        case "m": return .seconds(value * 60)
        case "h": return .seconds(value * 3600)
        case "d": return .seconds(value * 86_400)
        default: return nil
        }
    }

    /// Backs up every ``interval`` until cancelled; failures are logged and the next one is tried.
    func run(logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            let started = ContinuousClock.now
            do {
                let archive = try await onOwnThread { try backUpAndRotate() }
                logger.notice("scheduled backup written to \(archive.path) in \(ContinuousClock.now - started)")
            } catch {
                logger.error("scheduled backup failed (the next one runs in \(interval)): \(error)")
            }
        }
    }

    /// One backup, then the oldest archives past ``keep`` removed.
    func backUpAndRotate() throws -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        let archive = folder.appendingPathComponent("stratus-\(formatter.string(from: Date())).tar")
        try BackupCommand.backup(to: archive, from: dataDirectory, assets: assets, quiet: true)
        let archives = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix("stratus-") && $0.hasSuffix(".tar") }
            .sorted()
        for old in archives.dropLast(keep) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(old))
        }
        return archive
    }

    private func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
