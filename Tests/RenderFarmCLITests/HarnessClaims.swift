import Foundation

/// The "same as" claims of the docs, each a second way to render a generated job whose result must
/// equal the reference render (`render --out REF -j 1`): `-j 2`, shards merged, `--isolate`, and
/// `render --video` against `encode` of the reference's PNGs.
struct HarnessClaim: Sendable {
    var name: String
    /// Whether the claim covers the job (`render --video` takes a job without variants).
    var applies: @Sendable (HarnessJobFolder) -> Bool
    /// Renders the job the claim's way; nil when it matches the reference, else how it differs.
    var check: @Sendable (HarnessClaimContext) throws -> String?

    static let all: [HarnessClaim] = [parallel, shards, isolated, video, studio]
}

/// A job folder rendered once for reference, where a claim renders it again.
struct HarnessClaimContext {
    let directory: URL
    let folder: HarnessJobFolder
    let binary: HarnessBinary
    /// Where the reference render is (`--out`).
    let reference: URL
    /// A folder of the claim's own, empty.
    let scratch: URL

    /// The folder holding a render's frames: `--out DIR` puts the variants of a job (when there are
    /// several) in DIR/<name>.
    func root(_ out: URL) -> URL {
        let variants = out.appendingPathComponent(folder.name)
        return folder.hasVariants && FileManager.default.fileExists(atPath: variants.path) ? variants : out
    }

    /// Runs the binary in the job's folder; a problem text when it does not exit 0.
    func run(_ arguments: [String]) throws -> String? {
        let result = try binary.run(arguments, in: directory)
        guard result.status != 0 else { return nil }
        let error = result.stderr.split(separator: "\n").first { $0.contains("error") || $0.contains("failed") }
        return "renderfarm \(arguments.prefix(2).joined(separator: " ")) … exited \(result.status): \(error ?? "")"
    }

    /// Compares a render's folder with the reference's (bookkeeping files `ignored`).
    func compare(_ out: URL, ignoring ignored: @escaping (String) -> Bool = HarnessFolderComparison.isScratch)
        throws -> String?
    {
        let difference = try HarnessFolderComparison.compare(root(reference), root(out), ignoring: ignored)
        return difference.isEmpty ? nil : "reference vs \(out.lastPathComponent): " + difference.summary
    }
}

extension HarnessClaim {
    static let render = ["render", HarnessJobFolder.jobFile, "--progress", "none"]

    /// Frames are the same at any `-j`.
    static let parallel = HarnessClaim(name: "-j 1 and -j 2", applies: { _ in true }) { context in
        let out = context.scratch.appendingPathComponent("j2")
        if let problem = try context.run(render + ["--out", out.path, "-j", "2"]) { return problem }
        return try context.compare(out)
    }

    /// Two shards into one folder, then `merge`, equal one run (their journals and locks are their own).
    static let shards = HarnessClaim(name: "shards merged and one run", applies: { _ in true }) { context in
        let out = context.scratch.appendingPathComponent("shards")
        for shard in ["0/2", "1/2"] {
            if let problem = try context.run(render + ["--out", out.path, "--shard", shard]) { return problem }
        }
        let root = context.root(out)
        // Each job's folder (each variant's) holds its renderfarm.job.json.
        let folders = HarnessFolderComparison.files(in: root)
            .filter { $0 == "renderfarm.job.json" || $0.hasSuffix("/renderfarm.job.json") }
            .map { root.appendingPathComponent($0).deletingLastPathComponent().path }
        if let problem = try context.run(["merge"] + folders) { return problem }
        return try context.compare(out) { path in
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return HarnessFolderComparison.isScratch(path)
                || name.hasPrefix("renderfarm.journal") || name.hasPrefix("renderfarm.fingerprints")
                || name.hasSuffix(".lock")
        }
    }

    /// Frames drawn in sandboxed worker processes equal frames drawn in the renderer.
    static let isolated = HarnessClaim(name: "--isolate and in-process", applies: { _ in true }) { context in
        let out = context.scratch.appendingPathComponent("isolated")
        if let problem = try context.run(render + ["--out", out.path, "--isolate", "-j", "2"]) { return problem }
        return try context.compare(out)
    }

    /// `render --video` equals `encode` of the PNGs (decoded frame by frame, sound included), for every
    /// background (VideoOutput).
    static let video = HarnessClaim(
        name: "render --video and PNGs + encode",
        applies: { folder in !folder.hasVariants && Tools.hasFFmpeg }
    ) { context in
        let direct = context.scratch.appendingPathComponent("direct.mp4")
        let encoded = context.scratch.appendingPathComponent("encoded.mp4")
        if let problem = try context.run(render + ["--video", direct.path]) { return problem }
        if let problem = try context.run(["encode", context.reference.path, "-o", encoded.path, "--progress", "none"]) {
            return problem
        }
        let ffmpeg = Tools.find("ffmpeg") ?? "ffmpeg"
        let sums = try [direct, encoded].map { video in
            try Tools.run(ffmpeg, ["-v", "error", "-i", video.path, "-f", "framemd5", "-"]).text
                .split(separator: "\n").filter { !$0.hasPrefix("#") }
        }
        guard sums[0] != sums[1] else { return nil }
        // framemd5 lines: stream, dts, pts, duration, size, md5.
        let streams = ["0": "picture", "1": "sound"]
        var differing: [String: Int] = [:]
        for (a, b) in zip(sums[0], sums[1]) where a != b {
            differing[streams[String(a.prefix { $0 != "," })] ?? "other", default: 0] += 1
        }
        let counts = differing.keys.sorted().map { "\(differing[$0] ?? 0) \($0) frames" }
        return "render --video and encode decode to other \(counts.joined(separator: " and "))"
            + (sums[0].count != sums[1].count ? " (\(sums[0].count) and \(sums[1].count) frames in all)" : "")
    }
}
