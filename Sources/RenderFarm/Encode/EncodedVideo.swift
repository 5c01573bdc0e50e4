import FileInput
import FileOutput
import Foundation
import RenderFarmMedia

/// Puts a finished encode under its final name: a rename for most presets; for alpha-packed,
/// the video again with VAP's `vapc` box inserted, and the same config beside it as
/// `<name>.vap.json`. Every file appears whole or not at all, and only once ffprobe has read it
/// whole: every encode (`encode`, `render --video`) is published here.
package enum EncodedVideo {
    /// Publishes the video ffmpeg wrote to `staged`'s temporary file under its final name, once
    /// `verify` passes; returns the config file's path for alpha-packed videos.
    static func publish(_ staged: StagedFile, plan: EncodePlan, ffmpeg: FFmpeg) throws(EncodeError) -> String? {
        let (temporary, target) = (staged.temporaryPath, staged.path)
        try verify(staged, frames: plan.outputFrameCount, ffmpeg: ffmpeg)
        guard plan.preset == .alphaPacked else {
            do {
                try staged.commit()
            } catch {
                throw .output(error)
            }
            return nil
        }
        let json = Array(plan.vapConfig.json.utf8)
        let video: [UInt8]
        do {
            video = try InputFile.read(temporary, limit: Int(UInt32.max))
        } catch {
            throw .output(.io(path: temporary, reason: "the encoded video \(error.reason)"))
        }
        let packed: [UInt8]
        do {
            packed = try MP4Boxes.insertingVapc(json, into: video)
        } catch {
            throw .output(.io(path: target, reason: "cannot insert the vapc box: \(error.reason)"))
        }
        let config = configPath(forVideo: target)
        try write(packed, to: target)
        try write(json, to: config)
        staged.discard()
        return config
    }

    /// Checks the video in `staged`'s temporary file: ffmpeg can exit 0 and leave a file it could
    /// not finish (a full disk, a failed close), so ffprobe must read it and count `expected`
    /// frames. Otherwise the file is removed and the error (exit 74) names the final name.
    static func verify(_ staged: StagedFile, frames expected: Int, ffmpeg: FFmpeg) throws(EncodeError) {
        let problem: String
        switch try ffmpeg.probeFrames(in: staged.temporaryPath) {
        case .frames(let count) where count == expected:
            return
        case .frames(let count):
            problem = "it holds \(count) of the \(expected) frames"
        case .unreadable(let reason):
            problem =
                "ffprobe cannot read it: " + reason.replacingOccurrences(of: staged.temporaryPath, with: staged.path)
        }
        staged.discard()
        throw .output(
            .io(
                path: staged.path,
                reason: "ffmpeg reported success but the video it wrote is broken (\(problem)); nothing was kept"))
    }

    /// Removes a published video and its config file, when it cannot be recorded.
    package static func remove(_ result: EncodeResult) {
        unlink(result.file)
        if let config = result.configFile { unlink(config) }
    }

    /// The SHA-256 (hex) and size in bytes of a published video, for results and manifests.
    static func checksum(of path: String) -> (sha256: String, bytes: Int) {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return (SHA256.hex(ofFile: path) ?? "", bytes)
    }

    /// `clip.mp4` → `clip.vap.json`, in the video's folder.
    package static func configPath(forVideo video: String) -> String {
        let url = URL(fileURLWithPath: video)
        let name = url.pathExtension.isEmpty ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(name + ".vap.json").path
    }

    private static func write(_ bytes: [UInt8], to path: String) throws(EncodeError) {
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw .output(error)
        }
    }
}
