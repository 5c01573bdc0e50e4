import CairoKit
import Foundation
import Testing

/// The CI render check (`make ci-render`, `.ci/render-check.sh`) and `renderfarm compare`: a heart
/// moved by a few points must fail, an unchanged tree must pass.
@Suite("reference frames")
struct ReferenceCheckTests {
    static let references = Binary.packageRoot.appendingPathComponent("Tests/References")

    /// `reference` with one heart moved `dx` pixels right: the heart traced at `frame` (at the
    /// references' scale 0.5) is copied over itself, shifted.
    static func moveOneHeart(in reference: String, frame: Int, dx: Double, to path: String) throws {
        let trace = CLI.run(["trace", "jobs/live-hearts.json", "--frames", "\(frame)"])
        let line = try #require(try JSONSerialization.jsonObject(with: Data(trace.stdout.utf8)) as? [String: Any])
        let items = ((line["layers"] as? [[String: Any]])?.first?["items"] as? [[String: Any]]) ?? []
        let heart = try #require(
            items.first { ($0["alpha"] as? Double ?? 0) > 0.5 && ($0["visible"] as? Bool) == true })
        let scale = 0.5
        let size = ((heart["plan"] as? [String: Any])?["size"] as? Double ?? 36) * (heart["scale"] as? Double ?? 1)
        let x = ((heart["x"] as? Double ?? 0) - size / 2) * scale
        let y = ((heart["y"] as? Double ?? 0) - size) * scale
        let original = try ImageSurface(contentsOfPNG: reference)
        let moved = try ImageSurface(width: original.width, height: original.height)
        let context = try DrawingContext(surface: moved)
        context.setSource(original, x: 0, y: 0)
        context.paint()
        context.rectangle(x: x + dx, y: y, width: size * scale, height: size * scale)
        context.clip()
        context.setSource(original, x: dx, y: 0)
        context.paint()
        moved.flush()
        try moved.writePNG(to: path)
    }

    @Test("compare: identical frames match, a heart moved by 4 points differs and gets a diff image")
    func compare() throws {
        let folder = try TemporaryFolder()
        let reference = Self.references.appendingPathComponent("live-hearts/frame_00240.png").path
        try #require(FileManager.default.fileExists(atPath: reference), "run make update-references")
        let same = CLI.run(["compare", reference, reference])
        #expect(same.status == 0, "\(same.stdout)")
        let moved = folder.url.appendingPathComponent("moved.png").path
        try Self.moveOneHeart(in: reference, frame: 240, dx: 2, to: moved)
        let diff = folder.url.appendingPathComponent("diff.png").path
        let result = CLI.run(["compare", moved, reference, "--diff-image", diff])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("DIFFERENT"))
        #expect(FileManager.default.fileExists(atPath: diff))
    }

    @Test("compare tolerates small anti-aliasing changes")
    func tolerance() throws {
        let folder = try TemporaryFolder()
        let reference = Self.references.appendingPathComponent("live-hearts/frame_00240.png").path
        // Every pixel's channels nudged by up to 3 levels, as a rasteriser change would.
        let original = try ImageSurface(contentsOfPNG: reference)
        let nudged = try ImageSurface(width: original.width, height: original.height)
        for y in 0..<original.height {
            for x in 0..<original.width {
                let offset = y * original.stride + x * 4
                let alpha = original.bytes[offset + 3]
                for channel in 0..<4 {
                    let value = Int(original.bytes[offset + channel]) + (x + y + channel) % 4 - 1
                    nudged.bytes[y * nudged.stride + x * 4 + channel] = UInt8(max(0, min(Int(alpha), value)))
                }
                if alpha == 0 {
                    for channel in 0..<4 { nudged.bytes[y * nudged.stride + x * 4 + channel] = 0 }
                } else {
                    nudged.bytes[y * nudged.stride + x * 4 + 3] = alpha
                }
            }
        }
        nudged.markDirty()
        let path = folder.url.appendingPathComponent("nudged.png").path
        try nudged.writePNG(to: path)
        let result = CLI.run(["compare", path, reference])
        #expect(result.status == 0, "\(result.stdout)")
    }

    @Test("the CI render check fails on a moved heart in a reference and passes on the clean references")
    func ciRenderScript() throws {
        let folder = try TemporaryFolder()
        let jobs = folder.url.appendingPathComponent("jobs")
        try FileManager.default.createDirectory(at: jobs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Binary.packageRoot.appendingPathComponent("jobs/live-hearts.json"),
            to: jobs.appendingPathComponent("live-hearts.json"))
        let references = folder.url.appendingPathComponent("references")
        try FileManager.default.copyItem(at: Self.references, to: references)
        func check() throws -> Tools.Output {
            try Tools.run(
                "/usr/bin/env",
                [
                    "RENDERFARM=\(Binary.executable)", "JOBS_DIR=\(jobs.path)", "REFERENCES=\(references.path)",
                    "WORK=\(folder.url.appendingPathComponent("work").path)", "bash",
                    Binary.packageRoot.appendingPathComponent(".ci/render-check.sh").path, "check",
                ])
        }
        let clean = try check()
        #expect(clean.status == 0, "\(clean.text)\(clean.stderr)")
        #expect(clean.text.contains("3 reference frames compared, 0 failures"))

        let target = references.appendingPathComponent("live-hearts/frame_00240.png").path
        try Self.moveOneHeart(in: target, frame: 240, dx: 2, to: target)
        let broken = try check()
        #expect(broken.status != 0)
        #expect(broken.text.contains("frame_00240.png differs from its reference; diff image:"), "\(broken.text)")

        try FileManager.default.removeItem(at: references.appendingPathComponent("live-hearts"))
        let none = try check()
        #expect(none.status != 0)
        #expect(
            none.text.contains("live-hearts: no reference frames in \(references.path)/live-hearts; run make update-references"),
            "\(none.text)")
    }

    /// `reference` with every channel of every drawn pixel moved by `shift` levels (kept premultiplied).
    static func shifted(_ reference: String, by shift: Int, to path: String) throws {
        let original = try ImageSurface(contentsOfPNG: reference)
        let changed = try ImageSurface(width: original.width, height: original.height)
        for y in 0..<original.height {
            for x in 0..<original.width {
                let offset = y * original.stride + x * 4
                let alpha = Int(original.bytes[offset + 3])
                for channel in 0..<3 {
                    let value = Int(original.bytes[offset + channel])
                    let moved = value + shift <= alpha ? value + shift : value - shift
                    changed.bytes[y * changed.stride + x * 4 + channel] = UInt8(max(0, min(alpha, moved)))
                }
                changed.bytes[y * changed.stride + x * 4 + 3] = UInt8(alpha)
            }
        }
        changed.markDirty()
        try changed.writePNG(to: path)
    }

    @Test("compare judges the drawn pixels: a mostly transparent frame off by 31 everywhere it draws differs")
    func drawnPixels() throws {
        let folder = try TemporaryFolder()
        let reference = Self.references.appendingPathComponent("stream-replay/frame_00900.png").path
        try #require(FileManager.default.fileExists(atPath: reference), "run make update-references")
        let path = folder.url.appendingPathComponent("shifted.png").path
        try Self.shifted(reference, by: 31, to: path)
        let result = CLI.run(["compare", path, reference])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("DIFFERENT"), "\(result.stdout)")
        // One pixel far off fails however few change.
        let original = try ImageSurface(contentsOfPNG: reference)
        let spot = try ImageSurface(width: original.width, height: original.height)
        spot.copyPixels(from: original)
        spot.bytes[3] = 255
        spot.bytes[2] = 255
        spot.markDirty()
        let spotPath = folder.url.appendingPathComponent("spot.png").path
        try spot.writePNG(to: spotPath)
        let one = CLI.run(["compare", spotPath, reference])
        #expect(one.status == 1 && one.stdout.contains("max channel difference 255"), "\(one.stdout)")
        // Only the limit on one pixel failed it (692 drawn pixels: one PSNR measure alone would too).
        let allowed = CLI.run(["compare", spotPath, reference, "--max-error", "255", "--min-psnr", "0"])
        #expect(allowed.status == 0, "\(allowed.stdout)")
    }
}
