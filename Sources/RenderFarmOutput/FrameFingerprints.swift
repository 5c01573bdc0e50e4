import FileOutput

/// The fingerprint of every frame of a run: what decides its bytes, as a hash.
///
/// A frame whose layers report frame keys (ABI `frame_key`) is fingerprinted from those keys,
/// the canvas, output settings, renderer and plugin libraries, so it keeps its fingerprint when
/// an edit elsewhere in the job leaves its drawing alone, and frames that draw alike share one.
/// A frame no layer keys has the job's fingerprint bound to its number, as before frame keys.
package struct FrameFingerprints: Sendable {
    /// The fingerprint of the whole job (`PlannedJob.fingerprint`).
    package let job: String
    /// Fingerprints built from frame keys, by frame number.
    package let keyed: [Int: String]

    package init(job: String, keyed: [Int: String] = [:]) {
        self.job = job
        self.keyed = keyed
    }

    package subscript(index: Int) -> String {
        keyed[index] ?? Self.fingerprint(job: job, frame: index)
    }

    /// The fingerprint of frame `index` of the job with fingerprint `job`, for a frame no layer keys.
    package static func fingerprint(job: String, frame index: Int) -> String {
        String(SHA256.hex("\(job)#\(index)").prefix(32))
    }
}
