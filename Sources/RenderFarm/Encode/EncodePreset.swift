/// A target format for `renderfarm encode` and `render --video`: codec, pixel format, container
/// and what happens to transparency.
package enum EncodePreset: String, CaseIterable, Sendable {
    /// H.264 in MP4, `yuv420p`, even dimensions, `+faststart`; composited over the background.
    case mp4
    /// VP9 in WebM with `yuva420p`: keeps transparency (stream overlays, browsers).
    case webmAlpha = "webm-alpha"
    /// ProRes 4444 in QuickTime with alpha, for editors.
    case prores4444
    /// Animated GIF with a palette made in a first pass; composited over the background.
    case gif
    /// Animated PNG: lossless, keeps transparency.
    case apng
    /// H.264 MP4 in Tencent's VAP layout for live-stream apps: each frame holds the colour
    /// (premultiplied) and the alpha (as grey) side by side, VAP's config in a `vapc` box.
    case alphaPacked = "alpha-packed"
    /// HEVC with an alpha layer in QuickTime, for Apple's players; needs an ffmpeg whose libx265
    /// encodes alpha (`yuva420p`).
    case hevcAlpha = "hevc-alpha"

    /// The output file's extension.
    package var fileExtension: String {
        switch self {
        case .mp4: "mp4"
        case .webmAlpha: "webm"
        case .prores4444: "mov"
        case .gif: "gif"
        case .apng: "apng"
        case .alphaPacked: "mp4"
        case .hevcAlpha: "mov"
        }
    }

    /// The preset a file name asks for by its extension (`.mp4`, `.webm`, `.mov`, `.gif`, `.apng`, any case):
    /// the first preset of that container (`.mp4` is mp4, `.mov` prores4444); nil for another or no extension.
    package init?(fileName: String) {
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        guard let preset = Self.allCases.first(where: { $0.fileExtension == ext }) else { return nil }
        self = preset
    }

    /// What the default file name adds to the job's name, so that presets sharing an extension
    /// (mp4 and alpha-packed, prores4444 and hevc-alpha) never replace each other's video.
    package var nameSuffix: String { self == .alphaPacked || self == .hevcAlpha ? "-alpha" : "" }

    /// ffmpeg's muxer name, given with `-f` so temporary file names need no extension: every
    /// preset's file extension is also the name of its muxer.
    var muxer: String { fileExtension }

    /// Whether the output keeps the frames' alpha channel.
    package var keepsAlpha: Bool { self != .mp4 && self != .gif }

    /// Whether frames can be fed in one pass on a pipe (`render --video`). GIF needs its palette
    /// from every frame before the first can be written.
    package var streams: Bool { self != .gif }

    /// Whether the codec needs even width and height (4:2:0 chroma subsampling).
    var padsToEven: Bool { self == .mp4 || self == .webmAlpha || self == .hevcAlpha }

    /// The constant rate factor used without `--crf`, and the range the encoder accepts; nil when
    /// the codec has no CRF.
    package var crf: (default: Int, range: ClosedRange<Int>)? {
        switch self {
        // x264's default is 23; 18 is visually lossless for flat motion graphics.
        case .mp4: (18, 0...51)
        // The value ffmpeg's VP9 guide suggests for constant quality; libvpx accepts 0–63.
        case .webmAlpha: (30, 0...63)
        // As mp4: the alpha region needs it as much as the colour.
        case .alphaPacked: (18, 0...51)
        // x265's default is 28; 24 keeps edges of the alpha layer clean.
        case .hevcAlpha: (24, 0...51)
        case .prores4444, .gif, .apng: nil
        }
    }

    /// The encoder options after the filter graph.
    func codecArguments(crf: Int?) -> [String] {
        switch self {
        case .mp4:
            [
                "-c:v", "libx264", "-preset", "medium", "-crf", "\(crf ?? 18)", "-pix_fmt", "yuv420p",
                "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
                "-movflags", "+faststart",
            ]
        case .webmAlpha:
            // cpu-used 4 with row threading: about 10× faster than the default at a small size cost.
            [
                "-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-b:v", "0", "-crf", "\(crf ?? 30)",
                "-deadline", "good", "-cpu-used", "4", "-row-mt", "1",
            ]
        case .prores4444:
            [
                "-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le", "-alpha_bits", "16",
                "-vendor", "apl0",
            ]
        case .gif:
            ["-loop", "0"]
        case .apng:
            ["-c:v", "apng", "-plays", "0"]
        case .alphaPacked:
            // VapTool's choices (AnimTool.getFFmpegCmd): Main profile, no B-frames. BT.601 limited
            // range is what VAP's players assume for untagged files; the tags say so to the rest.
            [
                "-c:v", "libx264", "-preset", "medium", "-profile:v", "main", "-bf", "0", "-crf", "\(crf ?? 18)",
                "-pix_fmt", "yuv420p", "-colorspace", "smpte170m", "-color_primaries", "bt709", "-color_trc", "bt709",
                "-color_range", "tv", "-movflags", "+faststart",
            ]
        case .hevcAlpha:
            [
                "-c:v", "libx265", "-preset", "medium", "-crf", "\(crf ?? 24)", "-pix_fmt", "yuva420p", "-tag:v",
                "hvc1",
                "-movflags", "+faststart",
            ]
        }
    }
}
