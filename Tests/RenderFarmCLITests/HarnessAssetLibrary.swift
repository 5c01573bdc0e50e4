import Foundation

/// The files jobs copy their assets from, made once per run: footage clips (ffmpeg), fonts from
/// /usr/share/fonts, the example Lottie file and sounds of jobs/assets.
struct HarnessAssetLibrary: Sendable {
    var footage: [String] = []
    var fonts: [String] = []
    var lottie: [String] = []
    var sounds: [String] = []
    var ffmpeg: String?
    /// Where the footage clips and converted pictures are written.
    var folder: String

    /// Makes the clips in `folder` (which must outlive the library).
    static func make(in folder: URL) throws -> HarnessAssetLibrary {
        var library = HarnessAssetLibrary(folder: folder.path)
        library.ffmpeg = Tools.find("ffmpeg")
        if let ffmpeg = library.ffmpeg {
            let clips: [(String, [String])] = [
                (
                    "clip-a.mp4",
                    [
                        "-f", "lavfi", "-i", "testsrc2=s=48x32:r=10:d=1.5", "-c:v", "libx264",
                        "-pix_fmt", "yuv420p", "-g", "5",
                    ]
                ),
                (
                    "clip-b.mp4",
                    [
                        "-f", "lavfi", "-i", "testsrc=s=40x30:r=12:d=1", "-f", "lavfi",
                        "-i", "sine=f=440:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
                        "-shortest",
                    ]
                ),
                (
                    "clip-c.webm",
                    [
                        "-f", "lavfi", "-i", "mandelbrot=s=32x32:r=8", "-t", "1.2", "-c:v", "libvpx",
                        "-b:v", "200k",
                    ]
                ),
            ]
            for (name, arguments) in clips {
                let path = folder.appendingPathComponent(name).path
                let result = try Tools.run(ffmpeg, ["-v", "error", "-y"] + arguments + [path], timeout: 120)
                if result.status == 0 { library.footage.append(path) }
            }
        }
        let fontFolder = "/usr/share/fonts/truetype/noto"
        library.fonts = ["NotoSerif-Regular.ttf", "NotoSansMono-Regular.ttf", "NotoSans-Italic.ttf"]
            .map { "\(fontFolder)/\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }
        let assets = Binary.packageRoot.appendingPathComponent("jobs/assets")
        library.lottie = ["gift-pop.json"].map { assets.appendingPathComponent($0).path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        library.sounds = ["ding.mp3", "bed.ogg"].map { assets.appendingPathComponent($0).path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        return library
    }

    /// Whether jobs can have assets of `kind`.
    func has(_ kind: HarnessAssetKind) -> Bool {
        switch kind {
        case .footage: !footage.isEmpty
        case .font: !fonts.isEmpty
        case .lottie: !lottie.isEmpty
        default: true
        }
    }

    /// A new file of `kind` (not an event log or rows), with the file name extension it needs.
    func make(_ kind: HarnessAssetKind, random: inout FuzzRandom) throws -> (data: Data, ext: String) {
        switch kind {
        case .picture, .png:
            let png = HarnessAssetFiles.png(
                width: random.integer(6...24), height: random.integer(6...24), random: &random)
            guard kind == .picture, random.chance(0.4), let jpeg = try jpeg(from: png) else { return (png, "png") }
            return (jpeg, "jpg")
        case .lottie: return try (Data(contentsOf: URL(fileURLWithPath: random.pick(lottie))), "json")
        case .footage:
            let path = random.pick(footage)
            return try (Data(contentsOf: URL(fileURLWithPath: path)), URL(fileURLWithPath: path).pathExtension)
        case .font: return try (Data(contentsOf: URL(fileURLWithPath: random.pick(fonts))), "ttf")
        case .sound:
            guard random.chance(0.3), !sounds.isEmpty else {
                return (HarnessAssetFiles.wav(seconds: random.number(0.2...1), random: &random), "wav")
            }
            let path = random.pick(sounds)
            return try (Data(contentsOf: URL(fileURLWithPath: path)), URL(fileURLWithPath: path).pathExtension)
        case .events, .rows: return (Data(), "csv")
        }
    }

    /// The picture `png` as a JPEG (ffmpeg), nil without ffmpeg.
    func jpeg(from png: Data) throws -> Data? {
        guard let ffmpeg else { return nil }
        let scratch = URL(fileURLWithPath: folder).appendingPathComponent("jpeg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let input = scratch.appendingPathComponent("in.png")
        let output = scratch.appendingPathComponent("out.jpg")
        try png.write(to: input)
        let result = try Tools.run(ffmpeg, ["-v", "error", "-y", "-i", input.path, "-q:v", "4", output.path])
        return result.status == 0 ? try Data(contentsOf: output) : nil
    }
}
