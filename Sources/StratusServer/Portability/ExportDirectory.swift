import Foundation
import StratusWire

/// An export directory opened for import: its manifest read and its files checked against it.
///
/// The directory comes from elsewhere (another server, a copy, a person), so it is hostile until
/// checked: the manifest must be of a format and version this Stratus reads, name only files an
/// export writes (no paths, no `..`, no duplicates), and each listed file must be a regular file
/// (not a link) of the listed size, with nothing else in the directory. Contents are hashed as
/// the import reads them (``ExportFileReader``).
struct ExportDirectory {
    let url: URL
    let manifest: ExportManifest
    /// The manifest's files by name.
    let files: [String: ExportManifest.File]

    /// Reads and checks the manifest and the directory's listing.
    ///
    /// - Throws: ``ExportError`` naming the first problem.
    init(_ url: URL) throws {
        self.url = url
        let manifestURL = url.appendingPathComponent(ExportFormat.manifestFile)
        guard Self.isRegularFile(manifestURL) else {
            throw ExportError("\(url.path) has no \(ExportFormat.manifestFile): it is not a Stratus export, or the export did not finish")
        }
        let size = Self.size(of: manifestURL)
        guard size <= Int64(ExportFormat.maximumManifestSize) else { throw ExportError("\(manifestURL.path) is \(size) bytes, too large for a manifest") }
        let manifest: ExportManifest
        do {
            manifest = try JSONDecoder().decode(ExportManifest.self, from: try Data(contentsOf: manifestURL))
        } catch {
            throw ExportError("\(manifestURL.path) is not the manifest of a Stratus export: \(error)")
        }
        guard manifest.format == ExportFormat.name else { throw ExportError("\(url.path) is not a Stratus export (format '\(manifest.format)')") }
        guard manifest.version <= ExportFormat.version, manifest.version >= 1 else {
            throw ExportError(
                "\(url.path) is a version \(manifest.version) export; this stratus reads version \(ExportFormat.version): import it with a newer stratus")
        }
        if let problem = ContainerIdentifier.problem(with: manifest.container) { throw ExportError("\(url.path): \(problem)") }
        var files: [String: ExportManifest.File] = [:]
        for file in manifest.files {
            guard ExportFormat.isAllowed(file.name), file.name != ExportFormat.manifestFile else {
                throw ExportError("the manifest of \(url.path) lists '\(file.name)', which is not part of a Stratus export; nothing was imported")
            }
            guard files[file.name] == nil else { throw ExportError("the manifest of \(url.path) lists '\(file.name)' twice") }
            guard file.size >= 0, ExportFormat.isHex(file.sha256, digits: 64) else {
                throw ExportError("the manifest of \(url.path) gives '\(file.name)' an invalid size or SHA-256")
            }
            if let key = Self.assetKey(file.name), !file.sha256.hasPrefix(key) {
                throw ExportError("the manifest of \(url.path) lists the asset \(key) with a SHA-256 that is not its key")
            }
            files[file.name] = file
        }
        for name in ExportFormat.dataFiles where files[name] == nil {
            throw ExportError("the manifest of \(url.path) does not list \(name)")
        }
        self.manifest = manifest
        self.files = files
        try checkListing()
    }

    /// The content key of an `assets/<key>` name.
    static func assetKey(_ name: String) -> String? {
        let prefix = ExportFormat.assetsFolder + "/"
        return name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : nil
    }

    /// The asset entries, by key.
    var assets: [String: ExportManifest.File] {
        Dictionary(uniqueKeysWithValues: files.values.compactMap { file in Self.assetKey(file.name).map { ($0, file) } })
    }

    /// Opens a listed file for reading.
    func reader(_ name: String) throws -> ExportFileReader {
        guard let entry = files[name] else { throw ExportError("\(name) is not in the manifest") }
        return try ExportFileReader(entry, in: url)
    }

    /// Every entry of the directory is the manifest, a listed file, or the assets folder; every
    /// listed file is there, a regular file of the listed size.
    private func checkListing() throws {
        let manager = FileManager.default
        for name in try manager.contentsOfDirectory(atPath: url.path) {
            if name == ExportFormat.manifestFile { continue }
            if name == ExportFormat.assetsFolder {
                let folder = url.appendingPathComponent(name)
                guard Self.type(of: folder) == .typeDirectory else { throw ExportError("\(folder.path) is not a directory") }
                for asset in try manager.contentsOfDirectory(atPath: folder.path) where files[name + "/" + asset] == nil {
                    throw ExportError("\(folder.path) holds '\(asset)', which the manifest does not list; nothing was imported")
                }
                continue
            }
            guard files[name] != nil else { throw ExportError("\(url.path) holds '\(name)', which the manifest does not list; nothing was imported") }
        }
        for file in files.values.sorted(by: { $0.name < $1.name }) {
            let path = url.appendingPathComponent(file.name)
            guard Self.isRegularFile(path) else {
                throw ExportError("\(path.path) is missing or not a regular file (links are refused)")
            }
            let size = Self.size(of: path)
            guard size == file.size else { throw ExportError("\(path.path) is \(size) bytes; the manifest says \(file.size)") }
        }
    }

    /// The file's type without following a link.
    private static func type(of url: URL) -> FileAttributeType? {
        // NB: attributesOfItem does not follow symbolic links (lstat).
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
    }

    private static func isRegularFile(_ url: URL) -> Bool { type(of: url) == .typeRegular }

    private static func size(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? -1
    }
}
