import Foundation
import RenderFarmMedia
import RenderFarmOutput

/// What the installed ffmpeg can encode.
extension FFmpeg {
    /// The pixel formats `encoder` accepts (`ffmpeg -h encoder=NAME`); empty when ffmpeg does not
    /// know the encoder.
    package func pixelFormats(of encoder: String) throws(EncodeError) -> [String] {
        let command = FFmpegCommand(arguments: ["-hide_banner", "-h", "encoder=\(encoder)"])
        let process = try start(command, in: "/", feedsInput: false)
        let output = (try? process.progressOutput?.readToEnd()) ?? nil
        try process.finish()
        return Self.pixelFormats(inHelp: String(decoding: output ?? Data(), as: UTF8.self))
    }

    /// The list after "Supported pixel formats:" in an encoder's help text.
    static func pixelFormats(inHelp text: String) -> [String] {
        let label = "Supported pixel formats:"
        guard let line = text.split(separator: "\n").first(where: { $0.contains(label) }),
            let range = line.range(of: label)
        else { return [] }
        return line[range.upperBound...].split(separator: " ").map(String.init)
    }

    /// Throws when this ffmpeg cannot encode `preset`: hevc-alpha needs libx265 with a pixel
    /// format that has alpha (x265 4.0 through ffmpeg 7.1 or later).
    package func checkEncoder(for preset: EncodePreset) throws(EncodeError) {
        guard preset == .hevcAlpha else { return }
        let formats = try pixelFormats(of: "libx265")
        guard !formats.contains(where: { $0.hasPrefix("yuva") }) else { return }
        let found =
            formats.isEmpty
            ? "has no libx265 encoder" : "has a libx265 without alpha (\(formats.joined(separator: " ")))"
        throw .encoderUnavailable(
            "--preset hevc-alpha needs an ffmpeg whose libx265 encodes yuva420p (ffmpeg 7.1 or later with x265 4.0); "
                + "\(executable) \(found). Use --preset alpha-packed (H.264 with the alpha beside the colour, which "
                + "live-stream apps play with VAP), or point RENDERFARM_FFMPEG at a newer ffmpeg")
    }
}
