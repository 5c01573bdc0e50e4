import FileOutput
import RenderFarmJobs
import RenderFarmOutput
import StrictJSON

/// What decides a frame's bytes (<doc:OutputFolder>, "Fingerprints and resume"), in one place.
///
/// The canonical job is the job model itself as the compiler encodes it (`JobSpec` and every type it holds
/// are `Encodable` by synthesis), so a field the model gains is part of every fingerprint without a second
/// list to update; only the fields in `notDrawn` are left out. To it are added, per layer, the parameters as
/// the plugin receives them (defaults filled, variants typed, event logs read), the plugin's version and
/// library hash, and the content hash of every file the layer reads.
enum FrameIdentity {
    /// The job model's fields that never change a frame's bytes: the job's name, which frames a run asks
    /// for, where frames are written and whether duplicates are copies or links, how often a failing frame
    /// is tried again, the sound mixed into videos, and the list of layers turned off (they are in neither
    /// `layers` nor `composition`, which decide the pixels). Leaving a field out here is the only way to keep it
    /// out of the fingerprint; a field forgotten here costs a redraw, never a stale frame.
    static let notDrawn: [[String]] = [
        ["name"], ["frames"], ["retries"], ["audio"], ["output", "directory"], ["output", "duplicates"], ["disabled"],
    ]
    /// The host-level fields of every layer and group (`composition`) that never change a frame's bytes: the level
    /// and muting of the sound the layer plays. Left out as `notDrawn` is, at every depth of the composition.
    static let notDrawnLayerFields = ["gain", "muted"]

    /// An encoded `composition` without `notDrawnLayerFields` in any node's `fields`.
    static func drawn(composition value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map { drawn(composition: $0) })
        case .object(var object):
            for (key, member) in object { object[key] = drawn(composition: member) }
            if var fields = object["fields"]?.objectValue {
                for name in notDrawnLayerFields { fields[name] = nil }
                object["fields"] = .object(fields)
            }
            return .object(object)
        default:
            return value
        }
    }

    /// Everything that decides a frame's bytes, and nothing else, so the same frame of an unchanged job is
    /// recognised across runs. `layers`: each layer's plugin and validated parameters; `inputs`: the files
    /// each layer reads (`LayerInput`), as `inputs` and `eventLogs` of its entry (none when it reads none).
    static func canonical(_ spec: JobSpec, layers: [(LoadedPlugin, JSONObject)], inputs: [[LayerInput]])
        -> JSONValue
    {
        var job = model(spec)
        job["renderer"] = .string(rendererVersion)
        let written = job["layers"]?.arrayValue ?? []
        job["layers"] = .array(
            zip(written, zip(layers, inputs)).map { entry, validated in
                let ((plugin, params), read) = validated
                var layer = entry.objectValue ?? JSONObject()
                layer["params"] = .object(params)
                layer["pluginVersion"] = .string(plugin.info.version)
                layer["pluginSHA256"] = .string(plugin.librarySHA256)
                for reader in LayerInput.Reader.allCases {
                    let files = read.filter { $0.reader == reader }
                    if !files.isEmpty { layer[reader.rawValue] = .array(files.map { .object($0.json) }) }
                }
                return .object(layer)
            })
        return .object(job)
    }

    /// The job model's part of the canonical job: `spec` as the compiler encodes it, without `notDrawn`.
    static func model(_ spec: JobSpec) -> JSONObject {
        guard var job = (try? JSONValueEncoder.encode(spec))?.objectValue else {
            // The encoder never throws and a structure always encodes as an object.
            preconditionFailure("the job model encodes as an object")
        }
        for path in notDrawn { job = removing(path[...], from: job) }
        job["composition"] = job["composition"].map { drawn(composition: $0) }
        return job
    }

    /// `object` without the member at `path`.
    private static func removing(_ path: ArraySlice<String>, from object: JSONObject) -> JSONObject {
        guard let key = path.first else { return object }
        var result = object
        if path.count == 1 {
            result[key] = nil
        } else if let inner = object[key]?.objectValue {
            result[key] = .object(removing(path.dropFirst(), from: inner))
        }
        return result
    }
}

/// What a frame fingerprint built from frame keys is made of besides the keys: hashes computed once per job.
struct FingerprintParts: Sendable {
    /// Everything of the job that decides pixels except its layers and its length: the canvas, fps, seed,
    /// output settings, renderer, and every host-level field of every layer and group (`composition`) but
    /// their values at each frame, which the frame's composition state holds (`LayerNode.withoutAnimation`).
    let host: String
    /// Per layer, for frames it keys: its entry of the canonical job without what its keys stand in for
    /// (its parameters and the job's length with `RF_PLUGIN_KEYS_COVER_PARAMS`, the files it names with
    /// `RF_PLUGIN_KEYS_COVER_INPUTS`), with its place in the list.
    let keyedIdentities: [String]
    /// Per layer, for frames it does not key: its whole entry and the job's length.
    let configurations: [String]
    /// Per layer: whether it draws the same at every frame.
    let invariant: [Bool]

    init(canonical: JSONValue, plugins: [PluginInfo], composition: [LayerNode]) {
        var host = canonical.objectValue ?? JSONObject()
        host["composition"] =
            (try? JSONValueEncoder.encode(composition.map(\.withoutAnimation))).map {
                FrameIdentity.drawn(composition: $0)
            }
            ?? host["composition"]
        let layers = host["layers"]?.arrayValue ?? []
        let duration = host["duration"] ?? .null
        host["layers"] = nil
        // A longer job draws its earlier frames alike, unless a layer's drawing depends on the length: then
        // the length is in that layer's identity.
        host["duration"] = nil
        self.host = SHA256.hex(JSONValue.object(host).serialized(sortedKeys: true))
        var keyedIdentities: [String] = []
        var configurations: [String] = []
        for (index, (layer, plugin)) in zip(layers, plugins).enumerated() {
            var whole = layer.objectValue ?? JSONObject()
            whole["index"] = .number(Double(index))
            whole["duration"] = duration
            configurations.append(SHA256.hex(JSONValue.object(whole).serialized(sortedKeys: true)))
            var keyed = whole
            if plugin.keysCoverParams {
                keyed["params"] = nil
                keyed["duration"] = nil
                // The host hands the events it read to the plugin as a parameter; what a composition file says
                // is the layer's parameters and the host-level fields the job's composition holds.
                keyed[LayerInput.Reader.host.rawValue] = nil
                keyed[LayerInput.Reader.composition.rawValue] = nil
            }
            if plugin.keysCoverInputs { keyed[LayerInput.Reader.plugin.rawValue] = nil }
            keyedIdentities.append(SHA256.hex(JSONValue.object(keyed).serialized(sortedKeys: true)))
        }
        self.keyedIdentities = keyedIdentities
        self.configurations = configurations
        invariant = plugins.map(\.frameInvariant)
    }

    /// What one layer contributes to one frame.
    enum Contribution: Sendable {
        /// Not drawn at the frame (after its `end`, outside its group's span): `composition` says so.
        case notDrawn
        /// The layer's frame key (ABI `frame_key`).
        case key([UInt8])
        /// Drawn, but without a key.
        case unkeyed
    }

    /// The fingerprint of frame `index` from what its layers contribute, or nil when no layer keyed it.
    /// `composition`: the state of a composing job's layers at the frame (`LayerNode.state`).
    func fingerprint(frame index: Int, contributions: [Contribution], composition: String? = nil) -> String? {
        guard contributions.contains(where: { if case .key = $0 { true } else { false } }) else { return nil }
        var text = "keyed:" + host
        if let composition { text += ";composition:" + composition }
        for (layer, contribution) in contributions.enumerated() {
            switch contribution {
            case .notDrawn: text += ";-"
            case .key(let key): text += ";" + keyedIdentities[layer] + ":" + SHA256.hexString(key)
            case .unkeyed: text += ";" + configurations[layer] + (invariant[layer] ? "" : "#\(index)")
            }
        }
        return String(SHA256.hex(text).prefix(32))
    }
}
