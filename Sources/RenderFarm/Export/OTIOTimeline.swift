import FileOutput
import Foundation
import RenderFarmOutput
import StrictJSON

/// An OpenTimelineIO timeline for a rendered sequence: a `Timeline.1` whose `Stack.1` holds one
/// video `Track.1` with one `Clip.1`, whose `media_reference` is an `ImageSequenceReference.1`
/// built from the manifest's `sequence` fields, so editorial tools can pick the frames up.
///
/// `Clip.1` (one `media_reference`) is read by every OTIO release; releases since 0.15 upgrade
/// it to `Clip.2` (`media_references` + `active_media_reference_key`) on load.
package enum OTIOTimeline {
    /// The schema names written, as OpenTimelineIO documents them.
    package static let schemas = (
        timeline: "Timeline.1", stack: "Stack.1", track: "Track.1", clip: "Clip.1",
        imageSequence: "ImageSequenceReference.1", timeRange: "TimeRange.1", rationalTime: "RationalTime.1"
    )

    /// The timeline for `output`. `targetURLBase` is where the frames are as seen from the
    /// timeline file (a relative path ending in `/`, or a `file://` URL).
    package static func build(
        _ output: RenderedOutput, targetURLBase: String, allowMissing: Bool = false, sound: SoundClips? = nil
    ) throws(ExportError) -> JSONValue {
        if !output.complete && !allowMissing {
            throw .incomplete(directory: output.directory, missing: output.missing)
        }
        guard !output.expected.isEmpty else {
            throw .unusable(directory: output.directory, reason: "the manifest lists no frames")
        }
        guard output.isEvenlySpaced else {
            throw .unusable(
                directory: output.directory,
                reason: "the frames are not evenly spaced, which an ImageSequenceReference cannot describe; "
                    + "render an evenly spaced frame set (e.g. 0-99 or 0-99:2)")
        }
        let sequence = output.sequence
        let rate = sequence.rate
        // The reference spans the frames' job time: image k is frame start + k × step.
        let range = timeRange(
            start: Double(sequence.startFrame), duration: Double(output.expected.count * sequence.frameStep),
            rate: rate)
        let reference: JSONObject = [
            "OTIO_SCHEMA": .string(schemas.imageSequence),
            "metadata": .object([:]),
            "name": .string(output.jobName),
            "available_range": range,
            "available_image_bounds": .null,
            "target_url_base": .string(targetURLBase),
            "name_prefix": .string(sequence.namePrefix),
            "name_suffix": .string(sequence.nameSuffix),
            "start_frame": .number(Double(sequence.startFrame)),
            "frame_step": .number(Double(sequence.frameStep)),
            "rate": .number(rate),
            "frame_zero_padding": .number(Double(sequence.zeroPadding)),
            "missing_frame_policy": .string(output.complete ? "error" : "hold"),
        ]
        let clip: JSONObject =
            item(schemas.clip, name: output.jobName, sourceRange: range) + [
                "media_reference": .object(reference)
            ]
        let track: JSONObject =
            item(schemas.track, name: "V1", sourceRange: .null) + [
                "children": .array([.object(clip)]), "kind": "Video",
            ]
        let stack: JSONObject =
            item(schemas.stack, name: "tracks", sourceRange: .null) + [
                "children": .array([.object(track)] + (sound.map(audioTracks) ?? []))
            ]
        let renderfarm: JSONObject = [
            "manifest": .string(Manifest.fileName), "width": .number(Double(output.width)),
            "height": .number(Double(output.height)), "alpha": .bool(output.hasAlpha),
            "job": output.manifest["job"] ?? .null,
        ]
        return .object([
            "OTIO_SCHEMA": .string(schemas.timeline),
            "metadata": .object(["renderfarm": .object(renderfarm)]),
            "name": .string(output.jobName),
            "global_start_time": rationalTime(0, rate: rate),
            "tracks": .object(stack),
        ])
    }

    /// The fields every OTIO item carries.
    static func item(_ schema: String, name: String, sourceRange: JSONValue) -> JSONObject {
        [
            "OTIO_SCHEMA": .string(schema), "metadata": .object([:]), "name": .string(name),
            "source_range": sourceRange, "effects": .array([]), "markers": .array([]), "enabled": .bool(true),
        ]
    }

    static func rationalTime(_ value: Double, rate: Double) -> JSONValue {
        .object(["OTIO_SCHEMA": .string(schemas.rationalTime), "rate": .number(rate), "value": .number(value)])
    }

    static func timeRange(start: Double, duration: Double, rate: Double) -> JSONValue {
        .object([
            "OTIO_SCHEMA": .string(schemas.timeRange), "duration": rationalTime(duration, rate: rate),
            "start_time": rationalTime(start, rate: rate),
        ])
    }

    /// The `target_url_base` for frames in `frames` seen from a timeline file in `timelineFolder`:
    /// a relative path, or with `absolute` a `file://` URL.
    package static func targetURLBase(frames: String, timelineFolder: String, absolute: Bool) -> String {
        let target = URL(fileURLWithPath: frames).standardizedFileURL
        if absolute {
            return target.absoluteString.hasSuffix("/") ? target.absoluteString : target.absoluteString + "/"
        }
        let from = URL(fileURLWithPath: timelineFolder).standardizedFileURL.pathComponents
        let to = target.pathComponents
        let common = zip(from, to).prefix { $0 == $1 }.count
        let parts = Array(repeating: "..", count: from.count - common) + to.dropFirst(common)
        return parts.isEmpty ? "./" : parts.joined(separator: "/") + "/"
    }
}

extension JSONObject {
    /// `lhs` with the members of `rhs` added after its own.
    fileprivate static func + (lhs: JSONObject, rhs: JSONObject) -> JSONObject {
        var merged = lhs
        for (key, value) in rhs { merged[key] = value }
        return merged
    }
}

/// A timeline cannot be exported.
package enum ExportError: Error, Equatable, CustomStringConvertible {
    case manifest(RenderedOutputError)
    case incomplete(directory: String, missing: String)
    case unusable(directory: String, reason: String)
    case output(OutputError)

    package var description: String {
        switch self {
        case .manifest(let error): error.description
        case .incomplete(let directory, let missing):
            "\(directory): the render is incomplete (missing frames \(missing)); render the job again to finish it, "
                + "or pass --allow-missing (the reference then holds the last frame over gaps)"
        case .unusable(let directory, let reason): "\(directory): \(reason)"
        case .output(let error): error.description
        }
    }
}

extension OTIOTimeline {
    /// Writes `timeline` as pretty JSON, atomically.
    /// Writes `timeline` to `path`, creating the folders on the way (`-o edit/live-hearts.otio`).
    package static func write(_ timeline: JSONValue, to path: String) throws(ExportError) {
        do {
            try AtomicFile.createDirectory((path as NSString).deletingLastPathComponent)
            try AtomicFile.write(timeline.serialized(pretty: true), to: path)
        } catch {
            throw .output(error)
        }
    }
}
