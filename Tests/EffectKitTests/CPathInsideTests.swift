import FileInput
import Foundation
import RenderFarmPluginABI
import RenderFarmPluginKit
import Testing

@testable import EffectKit

/// The companion library's `rf_path_inside` confines a path as the host's `ConfinedPath` (and EffectKit's
/// `AssetPath`) does: generated folder trees with files, folders and links of every kind (inside, outside,
/// relative, absolute, dangling, looping), and generated paths through them, give the same file or the same kind
/// of refusal both ways.
@Suite("C path confinement equals the host's")
struct CPathInsideTests {
    /// What resolving gave: the file, or how it was refused.
    enum Outcome: Equatable {
        case file(String)
        case refusedParams
        case refusedResource
    }

    static func swiftOutcome(_ path: String, in folder: String) -> Outcome {
        do {
            return .file(try ConfinedPath.resolve(path, in: folder))
        } catch {
            switch error {
            case .empty, .nulByte, .outside: return .refusedParams
            case .folderUnresolvable, .notFound: return .refusedResource
            }
        }
    }

    static func cOutcome(_ path: String, in folder: String) -> (Outcome, String) {
        var out = [CChar](repeating: 0, count: 4096)
        var why = [CChar](repeating: 0, count: 512)
        let status = rf_path_inside(folder, path, &out, out.count, &why, why.count)
        let reason = text(why)
        switch status {
        case Int32(RF_OK.rawValue): return (.file(text(out)), reason)
        case Int32(RF_ERROR_PARAMS.rawValue): return (.refusedParams, reason)
        default: return (.refusedResource, reason)
        }
    }

    /// The NUL-terminated text in `buffer`.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A tree under `base`: the job's folder `job` with files, subfolders and links, and a folder beside it.
    static func makeTree(_ base: URL, _ random: inout SeededRandom) throws -> (job: String, names: [String]) {
        let manager = FileManager.default
        let job = base.appendingPathComponent("job")
        let outside = base.appendingPathComponent("outside")
        try manager.createDirectory(at: job.appendingPathComponent("sub/deeper"), withIntermediateDirectories: true)
        try manager.createDirectory(at: outside, withIntermediateDirectories: true)
        let folders = ["", "sub", "sub/deeper"]
        var names = ["sub", "deeper", "outside", "job", "missing"]
        for index in 0..<Int(random.uniform(6)) + 2 {
            let name = "f\(index).txt"
            let folder = folders[Int(random.uniform(UInt32(folders.count)))]
            try Data("x".utf8).write(to: job.appendingPathComponent(folder).appendingPathComponent(name))
            names += [name, folder.isEmpty ? name : folder + "/" + name]
        }
        try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        names.append("secret.txt")
        let targets = [
            "../outside/secret.txt", outside.path + "/secret.txt", "sub", "../sub", "..", ".", "f0.txt", "deeper/../..",
            job.path, "/", "nowhere", "loop", outside.path,
        ]
        for index in 0..<Int(random.uniform(6)) + 2 {
            let name = index == 0 ? "loop" : "l\(index)"
            let folder = folders[Int(random.uniform(UInt32(folders.count)))]
            let target = index == 0 ? "loop" : targets[Int(random.uniform(UInt32(targets.count)))]
            try? manager.createSymbolicLink(
                atPath: job.appendingPathComponent(folder).appendingPathComponent(name).path,
                withDestinationPath: target)
            names += [name, folder.isEmpty ? name : folder + "/" + name]
        }
        return (job.path, names)
    }

    static func randomPath(_ random: inout SeededRandom, names: [String], job: String) -> String {
        let parts = names + names + [".", "..", "", "sub", ".."]
        let count = random.uniform(3) == 0 ? Int(random.uniform(4)) : 1
        let body = (0..<count).map { _ in parts[Int(random.uniform(UInt32(parts.count)))] }.joined(separator: "/")
        switch random.uniform(8) {
        case 0: return job + "/" + body
        case 1: return "/" + body
        case 2: return job + "/../" + body
        default: return body
        }
    }

    @Test("2,000 generated paths through 40 generated trees: the same file, or the same refusal")
    func generatedPaths() throws {
        var random = SeededRandom(seed: 0x7061_7468)
        var resolved = 0
        for tree in 0..<40 {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("rf-path-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: base) }
            let (job, names) = try Self.makeTree(base, &random)
            // The job's folder reached through a link too: both resolve the folder itself first.
            let linked = base.appendingPathComponent("linked").path
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: job)
            for index in 0..<50 {
                let folder = index % 5 == 0 ? linked : job
                let path = Self.randomPath(&random, names: names, job: job)
                let expected = Self.swiftOutcome(path, in: folder)
                let (actual, reason) = Self.cOutcome(path, in: folder)
                #expect(actual == expected, "tree \(tree), \(path) in \(folder): C \(actual) (\(reason))")
                if case .file = expected { resolved += 1 }
            }
        }
        // The cases reach both sides of the rule: files found, and paths refused.
        #expect(resolved > 250 && resolved < 1_750, "\(resolved) of 2,000 resolved")
    }

    @Test("refusals name the path and the folder; a result longer than the buffer is refused, not cut")
    func messages() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("rf-path-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base.appendingPathComponent("job"), withIntermediateDirectories: true)
        try Data("1,2\n".utf8).write(to: base.appendingPathComponent("job/data.csv"))
        let job = URL(fileURLWithPath: base.path + "/job").resolvingSymlinksInPath().path
        #expect(Self.cOutcome("data.csv", in: job).0 == .file(job + "/data.csv"))
        let outside = Self.cOutcome("../../etc/passwd", in: job)
        #expect(outside.0 == .refusedParams && outside.1 == "../../etc/passwd resolves outside the folder \(job)")
        let missing = Self.cOutcome("gone.csv", in: job)
        #expect(missing.0 == .refusedResource && missing.1 == "gone.csv not found in the folder \(job)")
        #expect(Self.cOutcome("", in: job).1 == "empty path")
        var short = [CChar](repeating: 0, count: 8)
        var why = [CChar](repeating: 0, count: 256)
        #expect(rf_path_inside(job, "data.csv", &short, short.count, &why, why.count) == Int32(RF_ERROR_RESOURCE.rawValue))
        #expect(Self.text(why).hasSuffix("longer than 7 bytes"), "\(Self.text(why))")
    }
}
