import Foundation

/// What every sequence of a run shares: the plugins' tables, the example values, the asset files.
struct HarnessSetup: Sendable {
    let generator: HarnessGenerator
    /// Owns the asset library's folder.
    let assetFolder: URL

    static func make() throws -> HarnessSetup {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rf-harness-assets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let generator = HarnessGenerator(
            catalog: try HarnessCatalog.load(executable: Binary.executable), corpus: HarnessCorpus.load(),
            library: try HarnessAssetLibrary.make(in: folder))
        return HarnessSetup(generator: generator, assetFolder: folder)
    }

    func remove() { try? FileManager.default.removeItem(at: assetFolder) }

    /// A valid job folder written into `directory` (a few draws at most), nil when none validates.
    func validJob(in directory: URL, binary: HarnessBinary, random: inout FuzzRandom) throws -> HarnessJobFolder? {
        let repair = HarnessRepair(generator: generator, binary: binary)
        for _ in 0..<5 {
            var folder = try generator.job(random: &random)
            if try repair.repair(&folder, in: directory, random: &random) { return folder }
            try? FileManager.default.removeItem(at: directory)
        }
        return nil
    }
}
