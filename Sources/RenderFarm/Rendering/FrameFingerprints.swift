import Dispatch
import FileOutput
import Foundation
import RenderFarmOutput
import StrictJSON

/// What a keyed frame fingerprint is made of besides the keys: hashes computed once per job.
struct FingerprintParts: Sendable {
    /// Everything of the job that decides pixels except its layers' parameters and its length.
    let host: String
    /// Per layer: its plugin, start and place (not its parameters, which its keys cover).
    let identities: [String]
    /// Per layer: its whole configuration, for layers that key no frame.
    let configurations: [String]
    /// Per layer: whether it draws the same at every frame.
    let invariant: [Bool]

    /// `keysCoverInputs`, per layer: its keys change with the files its plugin names
    /// (`RF_PLUGIN_KEYS_COVER_INPUTS`), so their hashes stay out of its identity.
    init(canonical: JSONValue, invariant: [Bool], keysCoverInputs: [Bool]) {
        var host = canonical.objectValue ?? JSONObject()
        let layers = host["layers"]?.arrayValue ?? []
        // The length decides which frames exist, not what one draws; keys cover the rest, and the
        // layers' host-level fields are in each frame's `composition` state.
        host["layers"] = nil
        host["duration"] = nil
        host["composition"] = nil
        self.host = SHA256.hex(JSONValue.object(host).serialized(sortedKeys: true))
        identities = layers.enumerated().map { index, layer in
            var identity = layer.objectValue ?? JSONObject()
            // The keys cover the parameters, and with them the events read from the event logs.
            identity["params"] = nil
            identity[LayerInput.Reader.host.rawValue] = nil
            if keysCoverInputs[index] { identity[LayerInput.Reader.plugin.rawValue] = nil }
            identity["index"] = .number(Double(index))
            return SHA256.hex(JSONValue.object(identity).serialized(sortedKeys: true))
        }
        configurations = layers.map { SHA256.hex($0.serialized(sortedKeys: true)) }
        self.invariant = invariant
    }

    /// The fingerprint of frame `index` from its layers' keys (nil per layer without one), or
    /// nil when no layer keyed it.
    /// `composition`: the state of a composing job's layers at the frame (`LayerNode.state`).
    func fingerprint(frame index: Int, keys: [[UInt8]?], composition: String? = nil) -> String? {
        guard keys.contains(where: { $0 != nil }) else { return nil }
        var text = "keyed:" + host
        if let composition { text += ";composition:" + composition }
        for (layer, key) in keys.enumerated() {
            if let key {
                text += ";" + identities[layer] + ":" + SHA256.hexString(key)
            } else {
                text += ";" + configurations[layer] + (invariant[layer] ? "" : "#\(index)")
            }
        }
        return String(SHA256.hex(text).prefix(32))
    }
}

extension PlannedJob {
    /// Fingerprints of this run's frames, asking every layer for its frame keys (on all cores).
    func computeFrameFingerprints() -> FrameFingerprints {
        let indices = frames.frames
        guard layers.contains(where: { $0.plugin.frameKey != nil }), !indices.isEmpty else {
            return FrameFingerprints(job: fingerprint)
        }
        let parts = FingerprintParts(
            canonical: canonical, invariant: layers.map(\.plugin.info.frameInvariant),
            keysCoverInputs: layers.map(\.plugin.info.keysCoverInputs))
        var results = [String?](repeating: nil, count: indices.count)
        let chunk = 256
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: (indices.count + chunk - 1) / chunk) { part in
                for position in (part * chunk)..<min(indices.count, (part + 1) * chunk) {
                    let index = indices[position]
                    let keys = layers.indices.map { layer in
                        // A layer not drawn at the frame has no key; the composition state says so.
                        abiFrame(index, layer: layer).flatMap { layers[layer].frameKey(frame: $0) }
                    }
                    output[position] = parts.fingerprint(
                        frame: index, keys: keys, composition: compositionState(frame: index))
                }
            }
        }
        var keyed: [Int: String] = [:]
        keyed.reserveCapacity(indices.count)
        for (index, result) in zip(indices, results) {
            if let result { keyed[index] = result }
        }
        return FrameFingerprints(job: fingerprint, keyed: keyed)
    }
}

extension PlannedJob {
    /// The state of a composing job's layers at frame `index` (nil for a job that does not compose).
    func compositionState(frame index: Int) -> String? {
        guard spec.isComposed else { return nil }
        let time = spec.time(ofFrame: index)
        return JSONValue.array(spec.composition.map { $0.state(at: time) }).serialized(sortedKeys: true)
    }
}
