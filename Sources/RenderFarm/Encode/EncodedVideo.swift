import FileInput
import Foundation

/// Puts a finished encode under its final name: a rename for most presets; for alpha-packed,
/// the video again with VAP's `vapc` box inserted, and the same config beside it as
/// `<name>.vap.json`. Every file appears whole or not at all.
public enum EncodedVideo {
    /// Publishes the video ffmpeg wrote to `staged`'s temporary file under its final name; returns
    /// the config file's path for alpha-packed videos.
    static func publish(_ staged: StagedFile, plan: EncodePlan) throws(EncodeError) -> String? {
        let (temporary, target) = (staged.temporaryPath, staged.path)
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

    /// The SHA-256 (hex) and size in bytes of a published video, for results and manifests.
    static func checksum(of path: String) -> (sha256: String, bytes: Int) {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return (SHA256.hex(ofFile: path) ?? "", bytes)
    }

    /// `clip.mp4` → `clip.vap.json`, in the video's folder.
    public static func configPath(forVideo video: String) -> String {
        let url = URL(fileURLWithPath: video)
        let name = url.pathExtension.isEmpty ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(name + ".vap.json").path
    }

    private static func write(_ bytes: [UInt8], to path: String) throws(EncodeError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(OutputError) in try AtomicFile.write(buffer, to: path) }
        }
        do {
            try result.get()
        } catch {
            throw .output(error)
        }
    }
}
