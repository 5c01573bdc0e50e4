import FileInput
import Foundation
import RenderFarmJobs
import StrictJSON

/// A finished (or partly finished) output folder as its `manifest.json` describes it: what the
/// downstream tools (`encode`, `export-otio`, `preview`) read instead of the job file.
package struct RenderedOutput: Sendable {
    /// One frame the manifest lists.
    package struct Frame: Sendable, Equatable {
        package var index: Int
        package var time: Double
        package var file: String
        package var ok: Bool
    }

    /// The manifest's `sequence` object (OpenTimelineIO `ImageSequenceReference` field names).
    package struct Sequence: Sendable, Equatable {
        package var namePrefix: String
        package var nameSuffix: String
        package var startFrame: Int
        package var frameStep: Int
        package var rate: Double
        package var zeroPadding: Int
    }

    /// Absolute path of the output folder.
    package var directory: String
    /// The manifest as parsed, for tools that add to it.
    package var manifest: JSONObject
    package var jobName: String
    /// The job file the frames were rendered from, when the manifest names one.
    package var jobSource: String?
    package var width: Int
    package var height: Int
    package var fps: Double
    package var frameCount: Int
    /// The job's background colour, `#RRGGBBAA`.
    package var background: String
    /// Whether some frame has transparency (`image.alpha` is not `none`).
    package var hasAlpha: Bool
    package var complete: Bool
    package var missing: String
    /// The frames the render was asked for (`frameSet`), rendered or not.
    package var expected: [Int]
    /// The frames the manifest lists (written or failed), in index order.
    package var frames: [Frame]
    package var sequence: Sequence

    /// Frames whose file was written.
    package var writtenFrames: [Frame] { frames.filter(\.ok) }

    /// Whether the expected frames are evenly spaced by `sequence.frameStep`.
    package var isEvenlySpaced: Bool {
        zip(expected.dropFirst(), expected).allSatisfy { $0 - $1 == sequence.frameStep }
    }

    /// Absolute path of a frame's file.
    package func path(of frame: Frame) -> String { (directory as NSString).appendingPathComponent(frame.file) }

    /// Reads `manifest.json` in `directory` (`OutputFolder.rendered()` is how others ask).
    static func load(directory: String) throws(RenderedOutputError) -> RenderedOutput {
        let folder = URL(fileURLWithPath: directory).standardizedFileURL.path
        let path = (folder as NSString).appendingPathComponent(Manifest.fileName)
        let data: [UInt8]
        do {
            data = try InputFile.read(path, limit: limits.maxBytes)
        } catch {
            if case .missing = error { throw .missing(path: path) }
            throw .invalid(path: path, reason: error.reason)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(data, limits: limits)
        } catch {
            throw .invalid(path: path, reason: error.description)
        }
        if let root = value.objectValue, root["state"]?.stringValue == Manifest.State.rendering.rawValue {
            throw .rendering(path: path, holders: FolderLock.holders(of: folder).map(\.description))
        }
        do {
            return try RenderedOutput(value, directory: folder)
        } catch {
            throw .invalid(path: path, reason: error.reason)
        }
    }

    /// Manifests of long renders list many frames: allow far more than a job file.
    package static let limits = JSONParser.Limits(
        maxBytes: 1 << 30, maxDepth: 32, maxStringBytes: 1 << 20, maxContainerCount: 10_000_000)

    private struct FieldError: Error {
        package var reason: String
    }

    private init(_ value: JSONValue, directory: String) throws(FieldError) {
        guard let root = value.objectValue, root["format"]?.stringValue == Manifest.format else {
            throw FieldError(reason: "not a renderfarm manifest (format is not \"\(Manifest.format)\")")
        }
        func object(_ parent: JSONObject, _ key: String, _ path: String) throws(FieldError) -> JSONObject {
            guard let object = parent[key]?.objectValue else { throw FieldError(reason: "\(path) is missing") }
            return object
        }
        func number(_ parent: JSONObject, _ key: String, _ path: String) throws(FieldError) -> Double {
            guard let number = parent[key]?.doubleValue, number.isFinite, abs(number) < 1e12 else {
                throw FieldError(reason: "\(path) is missing or not a number")
            }
            return number
        }
        func string(_ parent: JSONObject, _ key: String, _ path: String) throws(FieldError) -> String {
            guard let text = parent[key]?.stringValue else { throw FieldError(reason: "\(path) is missing") }
            return text
        }
        let job = try object(root, "job", "job")
        let image = try object(root, "image", "image")
        let sequence = try object(root, "sequence", "sequence")
        self.directory = directory
        manifest = root
        jobName = try string(job, "name", "job.name")
        jobSource = job["source"]?.stringValue
        width = Int(try number(image, "width", "image.width"))
        height = Int(try number(image, "height", "image.height"))
        background = image["background"]?.stringValue ?? "#00000000"
        hasAlpha = image["alpha"]?.stringValue != "none"
        fps = try number(root, "fps", "fps")
        frameCount = Int(try number(root, "frameCount", "frameCount"))
        complete = root["complete"]?.boolValue ?? false
        missing = root["missing"]?.stringValue ?? ""
        self.sequence = Sequence(
            namePrefix: try string(sequence, "name_prefix", "sequence.name_prefix"),
            nameSuffix: try string(sequence, "name_suffix", "sequence.name_suffix"),
            startFrame: Int(try number(sequence, "start_frame", "sequence.start_frame")),
            frameStep: max(1, Int(try number(sequence, "frame_step", "sequence.frame_step"))),
            rate: try number(sequence, "rate", "sequence.rate"),
            zeroPadding: Int(try number(sequence, "frame_zero_padding", "sequence.frame_zero_padding")))
        guard width > 0, height > 0, fps > 0 else { throw FieldError(reason: "image size and fps must be positive") }
        var frames: [Frame] = []
        for (position, entry) in (root["frames"]?.arrayValue ?? []).enumerated() {
            guard let frame = entry.objectValue else {
                throw FieldError(reason: "frames[\(position)] is not an object")
            }
            let file = try string(frame, "file", "frames[\(position)].file")
            // A manifest is input: a file name must not lead out of the folder.
            guard !file.isEmpty, !file.contains("/"), file != "..", file != "." else {
                throw FieldError(reason: "frames[\(position)].file \"\(file)\" is not a plain file name")
            }
            frames.append(
                Frame(
                    index: Int(try number(frame, "index", "frames[\(position)].index")),
                    time: try number(frame, "time", "frames[\(position)].time"), file: file,
                    ok: frame["status"]?.stringValue == "ok"))
        }
        self.frames = frames.sorted { $0.index < $1.index }
        if let text = root["frameSet"]?.stringValue {
            do {
                expected = try FrameSet(parsing: text, limit: 10_000_000).frames
            } catch {
                throw FieldError(reason: "frameSet \"\(text)\": \(error.message)")
            }
        } else {
            expected = self.frames.map(\.index)
        }
    }
}

/// An output folder's manifest cannot be used.
package enum RenderedOutputError: Error, Equatable, CustomStringConvertible {
    /// No `manifest.json` (exit 66).
    case missing(path: String)
    /// The manifest is not one renderfarm wrote, or is damaged (exit 65).
    case invalid(path: String, reason: String)
    /// The folder is being rendered, or a render of it was killed (no `holders`) (exit 65).
    case rendering(path: String, holders: [String])

    package var description: String {
        switch self {
        case .missing(let path):
            "\(EscapedPath.of(path)) does not exist; render the job first (`renderfarm render JOB`) "
                + "or pass its output folder"
        case .invalid(let path, let reason):
            "\(EscapedPath.of(path)): \(reason); render the job again to rewrite it"
        case .rendering(let path, let holders) where holders.isEmpty:
            "\(EscapedPath.of(path)): state \"rendering\", but no render holds the folder: a render was killed "
                + "before it finished; run it again to resume, then try again"
        case .rendering(let path, let holders):
            "\(EscapedPath.of(path)): state \"rendering\": the folder is being rendered by "
                + "\(holders.joined(separator: ", ")); try again when it has finished"
        }
    }
}
