import CairoKit
import Foundation
import Testing

@Suite("export-otio and preview")
struct ExportAndPreviewTests {
    static func render(_ folder: URL, frames: String = "0-29") throws {
        let render = CLI.run([
            "render", "jobs/live-hearts.json", "--frames", frames, "--out", folder.path,
            "--progress", "none", "-j", "2",
        ])
        try #require(render.status == 0, "\(render.stderr)")
    }

    @Test("the timeline uses OTIO's documented schema and field names")
    func otioFields() throws {
        let folder = try TemporaryFolder()
        try Self.render(folder.url)
        let export = CLI.run(["export-otio", folder.path])
        #expect(export.status == 0, "\(export.stderr)")
        let data = try Data(contentsOf: folder.url.appendingPathComponent("live-hearts.otio"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["OTIO_SCHEMA"] as? String == "Timeline.1")
        let stack = try #require(root["tracks"] as? [String: Any])
        #expect(stack["OTIO_SCHEMA"] as? String == "Stack.1")
        let track = try #require((stack["children"] as? [[String: Any]])?.first)
        #expect(track["OTIO_SCHEMA"] as? String == "Track.1")
        let clip = try #require((track["children"] as? [[String: Any]])?.first)
        #expect(clip["OTIO_SCHEMA"] as? String == "Clip.1")
        let reference = try #require(clip["media_reference"] as? [String: Any])
        #expect(reference["OTIO_SCHEMA"] as? String == "ImageSequenceReference.1")
        for field in [
            "target_url_base", "name_prefix", "name_suffix", "start_frame", "frame_step", "rate",
            "frame_zero_padding", "missing_frame_policy", "available_range",
        ] {
            #expect(reference[field] != nil, "ImageSequenceReference.1 lacks \(field)")
        }
        #expect(reference["target_url_base"] as? String == "./")
        #expect(reference["frame_zero_padding"] as? Int == 5)
        #expect((reference["available_range"] as? [String: Any])?["OTIO_SCHEMA"] as? String == "TimeRange.1")
    }

    @Test(
        "the timeline round-trips through the opentimelineio package",
        .enabled(
            if: Tools.hasOpenTimelineIO || Tools.inCI,
            "Python package opentimelineio not installed (make otio-venv, or pip install opentimelineio)"))
    func otioRoundTrip() throws {
        // CI installs it (make otio-venv): there the test runs, and fails without the package.
        try #require(Tools.hasOpenTimelineIO, "opentimelineio cannot be imported by \(Tools.otioPython ?? "python3")")
        let folder = try TemporaryFolder()
        try Self.render(folder.url.appendingPathComponent("frames"))
        let file = folder.url.appendingPathComponent("edit/cut.otio").path
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        let export = CLI.run(["export-otio", folder.url.appendingPathComponent("frames").path, "-o", file])
        try #require(export.status == 0, "\(export.stderr)")
        let script = """
            import sys, opentimelineio as otio
            timeline = otio.adapters.read_from_file(sys.argv[1])
            clip = timeline.tracks[0][0]
            ref = clip.media_reference
            assert isinstance(ref, otio.schema.ImageSequenceReference), type(ref)
            print(ref.number_of_images_in_sequence(), ref.target_url_for_image_number(29), ref.rate,
                  timeline.duration().value, otio.adapters.write_to_string(timeline) != "")
            """
        let python = try Tools.run(Tools.otioPython ?? "python3", ["-c", script, file])
        #expect(python.status == 0, "\(python.stderr)")
        #expect(
            python.text.trimmingCharacters(in: .whitespacesAndNewlines) == "30 ../frames/frame_00029.png 60.0 30.0 True"
        )
    }

    @Test("preview renders a job directly, without writing frames")
    func previewJob() throws {
        let folder = try TemporaryFolder()
        let sheet = folder.url.appendingPathComponent("sheet.png").path
        let plain = CLI.run([
            "preview", "jobs/live-hearts.json", "--frames", "60-240:60", "--columns", "2",
            "--width", "400", "-o", sheet,
        ])
        #expect(plain.status == 0, "\(plain.stderr)")
        let image = try ImageSurface(contentsOfPNG: sheet)
        #expect(image.width == 400)
        // 2 rows: margins, thumbnails of 375:667 aspect, labels.
        #expect(image.height > 2 * 170 * 667 / 375)
        let debugSheet = folder.url.appendingPathComponent("debug.png").path
        let debug = CLI.run([
            "preview", "jobs/live-hearts.json", "--frames", "60-240:60", "--columns", "2",
            "--width", "400", "--debug", "-o", debugSheet,
        ])
        #expect(debug.status == 0, "\(debug.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sheet)) != Data(contentsOf: URL(fileURLWithPath: debugSheet)))
    }

    @Test("preview of an output folder uses its PNGs; a transparent corner shows the checkerboard")
    func previewFolder() throws {
        let folder = try TemporaryFolder()
        try Self.render(folder.url.appendingPathComponent("frames"), frames: "0-9")
        let sheet = folder.url.appendingPathComponent("sheet.png").path
        let result = CLI.run([
            "preview", folder.url.appendingPathComponent("frames").path, "-o", sheet,
            "--width", "300", "--debug",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try ImageSurface(contentsOfPNG: sheet)
        // The first cell starts at (12, 12): its first 8-pixel square is dark grey, the next light.
        let dark = image.pixel(x: 14, y: 14)
        let light = image.pixel(x: 22, y: 14)
        #expect(dark.r == 153 && dark.a == 255, "\(dark)")
        #expect(light.r == 204 && light.a == 255, "\(light)")
        let missing = CLI.run([
            "preview", folder.url.appendingPathComponent("frames").path, "-o", sheet,
            "--frames", "50",
        ])
        #expect(missing.status == 66)
    }
}
