import Foundation
import StrictJSON
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs
@testable import RenderFarmOutput

@Suite("OpenTimelineIO export")
struct OTIOTimelineTests {
    /// A manifest as `render` writes it, for `frameSet` with `missing` frames not written.
    static func output(frameSet: String = "10-19", step: Int = 1, missing: [Int] = []) throws -> RenderedOutput {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-otio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let expected = try FrameSet(parsing: frameSet).frames
        let frames: [JSONValue] = expected.filter { !missing.contains($0) }.map {
            .object([
                "index": .number(Double($0)), "time": .number(Double($0) / 30), "file": .string("f_\($0).png"),
                "status": "ok",
            ])
        }
        let manifest: JSONValue = .object([
            "format": "renderfarm.manifest", "version": 1,
            "job": .object(["name": "demo", "source": "/jobs/demo.json"]),
            "image": .object(["width": 750, "height": 1334, "alpha": "straight", "background": "#00000000"]),
            "fps": 30, "frameCount": .number(Double(expected.count)), "frameSet": .string(frameSet),
            "complete": .bool(missing.isEmpty), "missing": .string(FrameSet.compress(missing)),
            "frames": .array(frames),
            "sequence": .object([
                "target_url_base": "./", "name_prefix": "f_", "name_suffix": ".png",
                "start_frame": .number(Double(expected.first ?? 0)), "frame_step": .number(Double(step)),
                "rate": 30, "frame_zero_padding": 0, "missing_frame_policy": "error",
            ]),
        ])
        try manifest.serialized().write(
            to: folder.appendingPathComponent("manifest.json"), atomically: true,
            encoding: .utf8)
        return try OutputFolder(folder.path).rendered()
    }

    @Test("a Timeline.1 with one track and one clip whose media_reference is an ImageSequenceReference.1")
    func structure() throws {
        let timeline = try OTIOTimeline.build(try Self.output(), targetURLBase: "./")
        let root = try #require(timeline.objectValue)
        #expect(root["OTIO_SCHEMA"]?.stringValue == "Timeline.1")
        let stack = try #require(root["tracks"]?.objectValue)
        #expect(stack["OTIO_SCHEMA"]?.stringValue == "Stack.1")
        let tracks = try #require(stack["children"]?.arrayValue)
        #expect(tracks.count == 1)
        let track = try #require(tracks.first?.objectValue)
        #expect(track["OTIO_SCHEMA"]?.stringValue == "Track.1")
        #expect(track["kind"]?.stringValue == "Video")
        let clips = try #require(track["children"]?.arrayValue)
        #expect(clips.count == 1)
        let clip = try #require(clips.first?.objectValue)
        #expect(clip["OTIO_SCHEMA"]?.stringValue == "Clip.1")
        let reference = try #require(clip["media_reference"]?.objectValue)
        #expect(reference["OTIO_SCHEMA"]?.stringValue == "ImageSequenceReference.1")
        #expect(reference["target_url_base"]?.stringValue == "./")
        #expect(reference["name_prefix"]?.stringValue == "f_")
        #expect(reference["name_suffix"]?.stringValue == ".png")
        #expect(reference["start_frame"]?.doubleValue == 10)
        #expect(reference["frame_step"]?.doubleValue == 1)
        #expect(reference["rate"]?.doubleValue == 30)
        #expect(reference["frame_zero_padding"]?.doubleValue == 0)
        #expect(reference["missing_frame_policy"]?.stringValue == "error")
        let range = try #require(reference["available_range"]?.objectValue)
        #expect(range["OTIO_SCHEMA"]?.stringValue == "TimeRange.1")
        #expect(range["start_time"]?.objectValue?["OTIO_SCHEMA"]?.stringValue == "RationalTime.1")
        #expect(range["start_time"]?.objectValue?["value"]?.doubleValue == 10)
        #expect(range["duration"]?.objectValue?["value"]?.doubleValue == 10)
    }

    @Test("a frame step spans step × images of timeline time")
    func step() throws {
        let timeline = try OTIOTimeline.build(try Self.output(frameSet: "0-118:2", step: 2), targetURLBase: "./")
        let clip = timeline.objectValue?["tracks"]?.objectValue?["children"]?.arrayValue?.first?.objectValue?[
            "children"]?
            .arrayValue?.first?.objectValue
        let reference = clip?["media_reference"]?.objectValue
        #expect(reference?["frame_step"]?.doubleValue == 2)
        #expect(reference?["available_range"]?.objectValue?["duration"]?.objectValue?["value"]?.doubleValue == 120)
    }

    @Test("an incomplete render is refused unless missing frames are allowed, then held")
    func incomplete() throws {
        let output = try Self.output(missing: [12])
        #expect(throws: ExportError.self) { try OTIOTimeline.build(output, targetURLBase: "./") }
        let timeline = try OTIOTimeline.build(output, targetURLBase: "./", allowMissing: true)
        #expect(timeline.serialized().contains("\"missing_frame_policy\":\"hold\""))
    }

    @Test("unevenly spaced frames cannot be an image sequence")
    func uneven() throws {
        #expect(throws: ExportError.self) {
            try OTIOTimeline.build(try Self.output(frameSet: "1,2,5"), targetURLBase: "./")
        }
    }

    @Test("target_url_base is the frames' folder relative to the timeline, or a file URL")
    func urls() {
        #expect(OTIOTimeline.targetURLBase(frames: "/a/out", timelineFolder: "/a/out", absolute: false) == "./")
        #expect(
            OTIOTimeline.targetURLBase(frames: "/a/out/x", timelineFolder: "/a/edit", absolute: false) == "../out/x/")
        #expect(OTIOTimeline.targetURLBase(frames: "/a/out", timelineFolder: "/a", absolute: false) == "out/")
        #expect(OTIOTimeline.targetURLBase(frames: "/a/out", timelineFolder: "/b", absolute: true) == "file:///a/out/")
    }
}
