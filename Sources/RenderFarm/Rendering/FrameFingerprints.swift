import Dispatch
import FileOutput
import Foundation
import RenderFarmOutput
import StrictJSON

extension PlannedJob {
    /// Fingerprints of this run's frames, asking every layer for its frame keys (on all cores).
    func computeFrameFingerprints() -> FrameFingerprints {
        let indices = frames.frames
        guard !drawsElsewhere, layers.contains(where: { $0.plugin.frameKey != nil }), !indices.isEmpty else {
            return FrameFingerprints(job: fingerprint)
        }
        let parts = FingerprintParts(canonical: canonical, plugins: plugins, composition: spec.composition)
        var results = [String?](repeating: nil, count: indices.count)
        let chunk = 256
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: (indices.count + chunk - 1) / chunk) { part in
                for position in (part * chunk)..<min(indices.count, (part + 1) * chunk) {
                    let index = indices[position]
                    let contributions = layers.indices.map { layer -> FingerprintParts.Contribution in
                        // A motion-blurred layer is drawn at other times than the frame's: no one key covers them.
                        if clocks[layer].isMotionBlurred { return .unkeyed }
                        // Whether a layer is drawn at the frame is in the composition state.
                        guard let frame = abiFrame(index, layer: layer) else { return .notDrawn }
                        return layers[layer].frameKey(frame: frame).map { .key($0) } ?? .unkeyed
                    }
                    output[position] = parts.fingerprint(
                        frame: index, contributions: contributions, composition: compositionState(frame: index))
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
    /// The state of a composing job's layers at frame `index` (nil for a job that does not compose), and at each
    /// of its motion blur samples' times.
    func compositionState(frame index: Int) -> String? {
        guard spec.isComposed else { return nil }
        let time = spec.time(ofFrame: index)
        let times = [time] + spec.motionBlurOffsets.map { time + $0 }
        return JSONValue.array(times.map { time in .array(spec.composition.map { $0.state(at: time) }) })
            .serialized(sortedKeys: true)
    }
}
