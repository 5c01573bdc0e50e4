import FileInput
import FileOutput
import Foundation
import RenderFarmJobs
import StrictJSON

/// What an output folder is being rendered from: `renderfarm.job.json`, written atomically by
/// every run (whole or shard) before its first frame.
///
/// It holds the facts the manifest needs (job name, source, fingerprint, canvas, fps, frame set,
/// file naming, plugin versions) and the canonical job that was hashed into the fingerprint, so
/// `renderfarm merge` can check the shards' journals and write `manifest.json` without the job
/// file or the plugins. Its bytes depend only on the job and the frame set, never on the shard,
/// so shards writing it at the same time on several hosts all write the same file.
package struct JobRecord: Sendable, Equatable {
    package static let fileName = FolderLayout.jobRecord
    package static let format = "renderfarm.job"
    package static let version = 1

    /// One plugin a layer uses.
    package struct Plugin: Sendable, Equatable {
        package var id: String
        package var identifier: String
        package var version: String
        /// The library file it was loaded from ("" in records of older renderfarms).
        package var path: String
        /// The library file's sha256 ("" in records of older renderfarms).
        package var sha256: String

        package init(id: String, identifier: String, version: String, path: String, sha256: String) {
            self.id = id
            self.identifier = identifier
            self.version = version
            self.path = path
            self.sha256 = sha256
        }

        package var json: JSONValue {
            .object([
                "id": .string(id), "identifier": .string(identifier), "version": .string(version),
                "path": .string(path), "sha256": .string(sha256),
            ])
        }
    }

    package var name: String
    /// Absolute path of the job file.
    package var source: String
    /// The job's fingerprint (<doc:OutputFolder>), shared by all its frames.
    package var fingerprint: String
    package var seed: UInt64
    package var width: Double
    package var height: Double
    package var scale: Double
    /// `#RRGGBBAA` or `#RRGGBB`, as the manifest shows it.
    package var background: String
    package var fps: Double
    package var duration: Double
    /// Every frame of the render (all shards together).
    package var frames: FrameSet
    package var prefix: String
    package var padding: Int
    package var plugins: [Plugin]
    /// Everything that decides the pixels, as hashed into `fingerprint`.
    package var canonical: JSONValue
    /// For a variant of a job with `variants`: its name, index, row and values.
    package var variant: JSONValue?
    /// While the folder still holds frames of an older form of the job (a run after an edit was interrupted,
    /// or drew only some `--frames`): that form's canonical job, which the reasons of the next run that draws
    /// those frames name their changes against.
    package var earlier: JSONValue?

    /// The record of a render of `job`: its fingerprint, the frames of the whole render (every
    /// shard), the plugin libraries of its layers (each once) and its canonical form.
    package init(job: LoadedJob, fingerprint: String, frames: FrameSet, plugins: [Plugin], canonical: JSONValue) {
        let spec = job.spec
        name = spec.name
        source = job.file
        self.fingerprint = fingerprint
        seed = spec.seed
        width = spec.canvas.width
        height = spec.canvas.height
        scale = spec.canvas.scale
        background = spec.canvas.background.hex
        fps = spec.fps
        duration = spec.duration
        self.frames = frames
        prefix = spec.output.prefix
        padding = spec.output.padding
        self.plugins = plugins
        self.canonical = canonical
        variant = job.variant?.json
    }

    package var pixelWidth: Int { Int((width * scale).rounded()) }
    package var pixelHeight: Int { Int((height * scale).rounded()) }

    /// File name of frame `index`, e.g. `frame_00042.png`.
    package func fileName(ofFrame index: Int) -> String {
        OutputSettings.fileName(prefix: prefix, padding: padding, frame: index)
    }

    /// Time of frame `index` in seconds.
    package func time(ofFrame index: Int) -> Double { Double(index) / fps }

    package var json: JSONValue {
        var object: JSONObject = [
            "format": .string(Self.format), "version": .number(Double(Self.version)),
            "name": .string(name), "source": .string(source), "fingerprint": .string(fingerprint),
            // A string: a JSON number would lose the low bits of a 64-bit seed.
            "seed": .string(String(seed)),
            "canvas": .object([
                "width": .number(width), "height": .number(height), "scale": .number(scale),
                "background": .string(background),
            ]),
            "fps": .number(fps), "duration": .number(duration), "frames": .string(frames.description),
            "output": .object(["prefix": .string(prefix), "padding": .number(Double(padding))]),
            "plugins": .array(plugins.map(\.json)),
            "canonical": canonical,
        ]
        if let variant { object["variant"] = variant }
        if let earlier { object["earlier"] = earlier }
        return .object(object)
    }

    /// Writes the record into `folder`, atomically.
    func write(to folder: FolderDescriptor) throws(OutputError) {
        try folder.write(json.serialized(pretty: true, sortedKeys: true), to: Self.fileName)
    }

    /// Reads the record in `directory`; nil when there is none.
    package static func read(from directory: String) throws(JobRecordError) -> JobRecord? {
        let path = (directory as NSString).appendingPathComponent(fileName)
        let data: [UInt8]
        do {
            data = try InputFile.read(path, limit: JSONParser.Limits.default.maxBytes)
        } catch {
            if case .missing = error { return nil }
            throw JobRecordError(path: path, reason: error.reason)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(data)
        } catch {
            throw JobRecordError(path: path, reason: "is not valid JSON: \(error)")
        }
        return try JobRecord(json: value, path: path)
    }

    package init(json value: JSONValue, path: String) throws(JobRecordError) {
        func fail(_ reason: String) -> JobRecordError { JobRecordError(path: path, reason: reason) }
        guard let object = value.objectValue else { throw fail("is not a JSON object") }
        guard object["format"]?.stringValue == Self.format else { throw fail("is not a renderfarm job record") }
        guard let version = object["version"]?.doubleValue, version <= Double(Self.version) else {
            throw fail("has a newer version than this renderfarm reads (\(Self.version)); use a newer renderfarm")
        }
        guard let name = object["name"]?.stringValue, let source = object["source"]?.stringValue,
            let fingerprint = object["fingerprint"]?.stringValue,
            let seed = object["seed"]?.stringValue.flatMap({ UInt64($0) }),
            let canvas = object["canvas"]?.objectValue,
            let width = canvas["width"]?.doubleValue, let height = canvas["height"]?.doubleValue,
            let scale = canvas["scale"]?.doubleValue, let background = canvas["background"]?.stringValue,
            let fps = object["fps"]?.doubleValue, fps > 0, let duration = object["duration"]?.doubleValue,
            let frameText = object["frames"]?.stringValue, let output = object["output"]?.objectValue,
            let prefix = output["prefix"]?.stringValue, let padding = output["padding"]?.doubleValue,
            padding >= 0, padding <= 32, let pluginValues = object["plugins"]?.arrayValue,
            let canonical = object["canonical"]
        else { throw fail("is missing fields or has fields of the wrong type; render into the folder again") }
        var plugins: [Plugin] = []
        for value in pluginValues {
            guard let plugin = value.objectValue, let id = plugin["id"]?.stringValue,
                let identifier = plugin["identifier"]?.stringValue, let version = plugin["version"]?.stringValue
            else { throw fail("has an invalid plugin entry") }
            plugins.append(
                Plugin(
                    id: id, identifier: identifier, version: version, path: plugin["path"]?.stringValue ?? "",
                    sha256: plugin["sha256"]?.stringValue ?? ""))
        }
        do {
            frames =
                frameText.isEmpty
                ? FrameSet([]) : try FrameSet(parsing: frameText, limit: JobDecoder.Limits.maxFrames)
        } catch {
            throw fail("has an invalid frame set \"\(frameText)\": \(error.message)")
        }
        self.name = name
        self.source = source
        self.fingerprint = fingerprint
        self.seed = seed
        self.width = width
        self.height = height
        self.scale = scale
        self.background = background
        self.fps = fps
        self.duration = duration
        self.prefix = prefix
        self.padding = Int(padding)
        self.plugins = plugins
        self.canonical = canonical
        variant = object["variant"]
        earlier = object["earlier"]
    }
}

/// `renderfarm.job.json` exists but cannot be used.
package struct JobRecordError: Error, Equatable, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "\(EscapedPath.of(path)) \(reason)" }
}
