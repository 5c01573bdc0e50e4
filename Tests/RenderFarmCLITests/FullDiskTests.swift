import Foundation
import Testing

/// No false success from encoders: ffmpeg 5.1 exits 0 after "Error writing trailer … No space left
/// on device", so every video is checked before it takes its final name. On a full disk every
/// writer exits 74 naming its output and "no space left on device", leaves nothing under the final
/// name and records nothing. A real full disk is a small tmpfs (root only; skipped elsewhere); the
/// same paths are also driven everywhere by a fake ffmpeg that fails the way Debian's does.
@Suite("a full disk", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct FullDiskTests {
    /// 60 frames of live-hearts at scale 0.5 (375×667): every preset's video is over 8 KB.
    static func render(into out: String) throws {
        let render = CLI.run([
            "render", "jobs/live-hearts.json", "--frames", "0-59", "--scale", "0.5", "--out", out,
            "--progress", "none", "-j", "2",
        ])
        try #require(render.status == 0, "\(render.stderr)")
    }

    /// The manifest's `encodes` list.
    static func encodes(in folder: String) throws -> [Any] {
        let manifest = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent("manifest.json")))
        return (manifest as? [String: Any])?["encodes"] as? [Any] ?? []
    }

    /// Exit 74, and a message naming `path` and the reason.
    static func expectNoSpace(_ result: Binary.Result, naming path: String) {
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains(path), "\(result.stderr)")
        #expect(result.stderr.lowercased().contains("no space left on device"), "\(result.stderr)")
    }

    /// Names in `folder` a failed write may not leave: temporary files of ours.
    static func leftovers(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".rf-tmp-") }
    }

    struct Video: Sendable, CustomTestStringConvertible {
        var preset: String
        var file: String
        var testDescription: String { preset }
    }

    /// Frames piped in the encoder's format (mp4, webm-alpha, alpha-packed) and PNGs read by
    /// ffmpeg (apng; gif in two passes).
    static let videos = [
        Video(preset: "mp4", file: "x.mp4"), Video(preset: "webm-alpha", file: "x.webm"),
        Video(preset: "alpha-packed", file: "x.mp4"), Video(preset: "apng", file: "x.apng"),
        Video(preset: "gif", file: "x.gif"),
    ]

    @Test(
        "encode -o onto a full disk: exit 74 naming the video, nothing under its name, nothing recorded",
        .enabled(if: SmallDisk.available, SmallDisk.unavailable), arguments: videos)
    func encodeOntoFullDisk(_ video: Video) throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out").path
        try Self.render(into: out)
        let disk = try SmallDisk(in: folder)
        // One page left: ffmpeg writes part of the file, then fails at the end (and exits 0).
        try disk.fill(leaving: 4096)
        let file = disk.url.appendingPathComponent(video.file).path
        let result = CLI.run(["encode", out, "--preset", video.preset, "-o", file, "--progress", "none"])
        Self.expectNoSpace(result, naming: file)
        #expect(try disk.names() == ["filler"], "nothing under the final name, no temporary file")
        #expect(try Self.encodes(in: out).isEmpty)
    }

    @Test(
        "encode into its own full output folder blames the video, not manifest.json, and the manifest is unchanged",
        .enabled(if: SmallDisk.available, SmallDisk.unavailable))
    func fullOutputFolder() throws {
        let disk = try SmallDisk(in: TemporaryFolder(), size: 1024 * 1024)
        let out = disk.url.appendingPathComponent("out").path
        try Self.render(into: out)
        try disk.fill(leaving: 4096)
        let manifest = URL(fileURLWithPath: out).appendingPathComponent("manifest.json")
        let before = try Data(contentsOf: manifest)
        let result = CLI.run(["encode", out, "--progress", "none"])
        let video = out + "/live-hearts.mp4"
        Self.expectNoSpace(result, naming: video)
        #expect(!result.stderr.contains("manifest.json"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: video))
        #expect(try Self.leftovers(in: out).isEmpty)
        #expect(try Data(contentsOf: manifest) == before)
    }

    @Test(
        "a video that fits but whose manifest entry does not is not kept: exit 74 naming manifest.json",
        .enabled(if: SmallDisk.available, SmallDisk.unavailable))
    func manifestDoesNotFit() throws {
        let folder = try TemporaryFolder()
        let disk = try SmallDisk(in: folder, size: 1024 * 1024)
        let out = disk.url.appendingPathComponent("out").path
        try Self.render(into: out)
        let manifest = URL(fileURLWithPath: out).appendingPathComponent("manifest.json")
        let before = try Data(contentsOf: manifest)
        // The real ffmpeg writes the whole video, then the disk fills up before the manifest is written.
        let ffmpeg = try #require(Tools.find("ffmpeg"))
        let fake = try folder.write(
            """
            #!/bin/sh
            "\(ffmpeg)" "$@" || exit $?
            cat /dev/zero > '\(disk.path)/filler' 2> /dev/null
            exit 0

            """, to: "bin/ffmpeg")
        chmod(fake, 0o755)
        let result = CLI.run(["encode", out, "--progress", "none"], environment: ["RENDERFARM_FFMPEG": fake])
        Self.expectNoSpace(result, naming: manifest.path)
        #expect(result.stderr.contains("live-hearts.mp4 was not kept"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/live-hearts.mp4"))
        #expect(try Self.leftovers(in: out).isEmpty)
        #expect(try Data(contentsOf: manifest) == before)
    }

    @Test(
        "render --video onto a full disk: exit 74 naming the video, nothing under its name",
        .enabled(if: SmallDisk.available, SmallDisk.unavailable), arguments: ["x.mp4", "x.webm"])
    func renderVideoOntoFullDisk(_ name: String) throws {
        let disk = try SmallDisk(in: TemporaryFolder())
        try disk.fill(leaving: 4096)
        let file = disk.url.appendingPathComponent(name).path
        let result = CLI.run([
            "render", "jobs/live-hearts.json", "--frames", "0-59", "--scale", "0.5", "--video", file,
            "--progress", "none", "-j", "2",
        ])
        Self.expectNoSpace(result, naming: file)
        #expect(try disk.names() == ["filler"])
    }

    @Test(
        "unpack-alpha, preview and export-otio onto a full disk: exit 74 naming the output, nothing left in it",
        .enabled(if: SmallDisk.available, SmallDisk.unavailable), arguments: ["unpack-alpha", "preview", "export-otio"])
    func otherWritersOntoFullDisk(_ command: String) throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out").path
        try Self.render(into: out)
        let packed = folder.url.appendingPathComponent("gift.mp4").path
        if command == "unpack-alpha" {
            let encode = CLI.run(["encode", out, "--preset", "alpha-packed", "-o", packed, "--progress", "none"])
            try #require(encode.status == 0, "\(encode.stderr)")
        }
        let disk = try SmallDisk(in: folder, size: 64 * 1024)
        // unpack-alpha writes a few frames (about 1.2 KB each, a page each) before the disk is full.
        try disk.fill(leaving: ["unpack-alpha": 16384, "preview": 4096][command] ?? 0)
        let target = disk.url.appendingPathComponent(
            ["unpack-alpha": "frames", "preview": "sheet.png", "export-otio": "x.otio"][command] ?? ""
        ).path
        let arguments =
            switch command {
            case "unpack-alpha": ["unpack-alpha", packed, "-o", target, "--progress", "none"]
            case "preview": ["preview", out, "-o", target]
            default: ["export-otio", out, "-o", target]
            }
        let result = CLI.run(arguments)
        Self.expectNoSpace(result, naming: target)
        let left = try disk.names().filter { $0 != "filler" && $0 != "frames" }
        #expect(left.isEmpty, "\(left)")
        if command == "unpack-alpha" {
            #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
        }
    }

    /// A fake ffmpeg (`RENDERFARM_FFMPEG`) that reads its input, writes the start of a file to
    /// its output (the last argument), and fails the way Debian's ffmpeg 5.1 does on a full disk:
    /// "Error writing trailer …: No space left on device", exit 0.
    static func fakeFullDiskFFmpeg(in folder: TemporaryFolder) throws -> String {
        let fake = try folder.write(
            """
            #!/bin/sh
            for argument; do output="$argument"; done
            cat > /dev/null
            printf 'part of a video' > "$output"
            echo "Error writing trailer of $output: No space left on device" >&2
            echo "Error closing file $output: No space left on device" >&2
            exit 0

            """, to: "bin/ffmpeg")
        chmod(fake, 0o755)
        return fake
    }

    @Test(
        "injected ENOSPC: ffmpeg says no space but exits 0; encode and render --video exit 74, keep and record nothing",
        arguments: ["mp4", "apng", "render --video"])
    func injectedNoSpace(_ route: String) throws {
        let folder = try TemporaryFolder()
        let fake = try Self.fakeFullDiskFFmpeg(in: folder)
        let out = folder.url.appendingPathComponent("out").path
        let file = folder.url.appendingPathComponent("x." + (route == "apng" ? "apng" : "mp4")).path
        let result: Binary.Result
        if route == "render --video" {
            result = CLI.run(
                [
                    "render", "jobs/live-hearts.json", "--frames", "0-9", "--scale", "0.25", "--video", file,
                    "--progress", "none",
                ], environment: ["RENDERFARM_FFMPEG": fake])
        } else {
            try Self.render(into: out)
            result = CLI.run(
                ["encode", out, "--preset", route, "-o", file, "--progress", "none"],
                environment: ["RENDERFARM_FFMPEG": fake])
            #expect(try Self.encodes(in: out).isEmpty)
        }
        Self.expectNoSpace(result, naming: file)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try Self.leftovers(in: folder.path).isEmpty)
    }

    @Test(
        "ffmpeg exits 0 silently with a broken or short video: exit 74 naming the video, nothing kept or recorded",
        arguments: ["unreadable", "short"])
    func silentlyBroken(_ damage: String) throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out").path
        try Self.render(into: out)
        // The real ffmpeg, then the file is replaced by garbage or cut to 60 %.
        let ffmpeg = try #require(Tools.find("ffmpeg"))
        let cut =
            damage == "unreadable"
            ? "printf garbage > \"$output\"" : "truncate -s $(( $(stat -c %s \"$output\") * 6 / 10 )) \"$output\""
        let fake = try folder.write(
            """
            #!/bin/sh
            for argument; do output="$argument"; done
            "\(ffmpeg)" "$@" || exit $?
            \(cut)

            """, to: "bin/ffmpeg")
        chmod(fake, 0o755)
        let file = folder.url.appendingPathComponent("x.webm").path
        let result = CLI.run(
            ["encode", out, "-o", file, "--progress", "none"], environment: ["RENDERFARM_FFMPEG": fake])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr.contains("I/O error on \(file): ffmpeg reported success but the video"), "\(result.stderr)")
        let reason = damage == "unreadable" ? "ffprobe cannot read it" : "of the 60 frames"
        #expect(result.stderr.contains(reason), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try Self.leftovers(in: folder.path).isEmpty)
        #expect(try Self.encodes(in: out).isEmpty)
    }
}
