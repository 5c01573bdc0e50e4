import CairoKit
import Foundation
import Testing

/// Test footage made by ffmpeg: every frame shows its own index (its number in presentation order) as
/// eight 8 × 32-pixel blocks, bit b of the index white (luma 235) in block b, else black (luma 16),
/// losslessly encoded, so a rendered frame tells which source frame it shows.
enum FootageFixture {
    static let width = 64
    static let height = 32

    /// The geq expression drawing the frame number's bits.
    static let bits = "geq=lum='if(mod(floor(N/pow(2,floor(X/8))),2),235,16)':cb=128:cr=128"

    /// A clip of `frames` frames at `fps` (H.264, lossless, GOP 12 with B-frames) written to `path`;
    /// `variable` gives the frames uneven presentation times instead: frame n at about (n + ⌊n² / 20⌋) / 48 s,
    /// in a time base of 1/480 s.
    static func make(_ path: String, fps: Int, frames: Int, variable: Bool = false) throws {
        var filters = bits
        var output: [String]
        switch path.split(separator: ".").last {
        // Animated pictures: a GIF (black and white are in every palette) and an APNG, looping for ever.
        case "gif": output = ["-c:v", "gif", "-loop", "0"]
        case "apng": output = ["-c:v", "apng", "-pix_fmt", "rgba", "-plays", "0", "-f", "apng"]
        // An animated WebP, lossless, its durations whole milliseconds (libwebp, not FFmpeg, reads it back).
        case "webp": output = ["-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0", "-f", "webp"]
        default: output = ["-c:v", "libx264", "-qp", "0", "-g", "12", "-bf", "2", "-pix_fmt", "yuv420p"]
        }
        if variable {
            filters += ",settb=1/480,setpts='(N+floor(N*N/20))/48/TB'"
            output += ["-fps_mode", "passthrough", "-enc_time_base", "1/480"]
            if !path.hasSuffix(".gif") && !path.hasSuffix(".apng") { output += ["-video_track_timescale", "480"] }
        }
        try ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=\(width)x\(height):r=\(fps)", "-frames:v", "\(frames)", "-vf",
                filters,
            ] + output + [path])
    }

    /// Runs `ffmpeg -v error -y ARGUMENTS`, which must succeed; its output.
    @discardableResult
    static func ffmpeg(_ arguments: [String]) throws -> Tools.Output {
        let ffmpeg = try #require(Tools.find("ffmpeg"))
        let result = try Tools.run(ffmpeg, ["-v", "error", "-y"] + arguments)
        try #require(result.status == 0, "ffmpeg \(arguments): \(result.stderr)")
        return result
    }

    /// The path of rendered frame `index` in the output folder `out`.
    static func frame(_ index: Int, in out: URL) -> String {
        out.appendingPathComponent(String(format: "frame_%05d.png", index)).path
    }

    /// The clip's presentation timestamps from its first frame's, in its time base (as ffprobe reads them).
    static func timestamps(_ path: String) throws -> (ticks: [Int], timeBase: (num: Int, den: Int)) {
        let ffprobe = try #require(Tools.find("ffprobe"))
        func probe(_ entries: String) throws -> [String] {
            let result = try Tools.run(
                ffprobe,
                ["-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "default=nw=1:nk=1", path])
            return result.text.split(whereSeparator: \.isNewline).map(String.init)
        }
        let ticks = try probe("frame=pts").compactMap { Int($0) }
        let base = try #require(try probe("stream=time_base").first).split(separator: "/").compactMap { Int($0) }
        try #require(base.count == 2)
        return (ticks.map { $0 - (ticks.first ?? 0) }, (base[0], base[1]))
    }

    /// The source frame number a rendered frame shows (the canvas is the clip's size, `fit: fill`).
    static func index(of png: String) throws -> Int {
        let image = try ImageSurface(contentsOfPNG: png)
        var index = 0
        for bit in 0..<8 {
            let pixel = image.pixel(x: bit * 8 + 4, y: height / 2)
            #expect(pixel.a == 255 && (pixel.r < 40 || pixel.r > 215), "\(png) block \(bit): \(pixel)")
            if pixel.r > 128 { index |= 1 << bit }
        }
        return index
    }

    /// A job of one `video` layer (`params` merged over the clip `file`), filling a canvas of the clip's size
    /// (`canvas`: another size, width and height).
    static func job(
        file: String, fps: Int, frames: Int, params: [String: Any] = [:], canvas: (Int, Int)? = nil
    ) throws -> String {
        var layer: [String: Any] = ["file": file, "fit": "fill"]
        for (key, value) in params { layer[key] = value }
        let (canvasWidth, canvasHeight) = canvas ?? (width, height)
        let job: [String: Any] = [
            "version": 1, "name": "footage", "canvas": ["width": canvasWidth, "height": canvasHeight, "scale": 1],
            "fps": fps, "duration": Double(frames) / Double(fps), "output": ["dir": "out", "compression": 1],
            "layers": [["effect": "video", "params": layer]],
        ]
        let data = try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The source frame each rendered frame in `out` shows, by frame number.
    static func shown(in out: URL, frames: Int) throws -> [Int] {
        try (0..<frames).map { frame in
            try index(of: self.frame(frame, in: out))
        }
    }

    /// The predicted pictures of the clip at `path` (its keyframes instead when `keyframes`) with payload enough
    /// to damage past their slice headers, in the file's (decoding) order: the frame each shows and where its
    /// bytes are in the file (ffprobe).
    static func pictures(_ path: String, keyframes: Bool = false) throws -> [(frame: Int, position: Int, size: Int)] {
        let ticks = try timestamps(path).ticks
        let ffprobe = try #require(Tools.find("ffprobe"))
        let probed = try Tools.run(
            ffprobe,
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,pos,size,flags", "-of",
                "compact=p=0", path,
            ])
        // "pts=…|size=…|pos=…|flags=…" for every packet.
        let packets: [[String: String]] = probed.text.split(whereSeparator: \.isNewline).map { line in
            let fields: [[String]] = line.split(separator: "|").map {
                $0.split(separator: "=", maxSplits: 1).map(String.init)
            }
            let pairs: [(String, String)] = fields.filter { $0.count == 2 }.map { ($0[0], $0[1]) }
            return Dictionary(pairs, uniquingKeysWith: { $1 })
        }
        let first = try #require(packets.compactMap { $0["pts"].flatMap { Int($0) } }.min())
        return packets.compactMap { packet in
            guard let pts = packet["pts"].flatMap({ Int($0) }), let frame = ticks.firstIndex(of: pts - first),
                packet["flags"]?.contains("K") == keyframes, let position = packet["pos"].flatMap({ Int($0) }),
                let size = packet["size"].flatMap({ Int($0) }), size >= 48
            else { return nil }
            return (frame, position, size)
        }
    }

    /// `file` with the payload of `pictures` overwritten (XOR), their headers left whole: damage that demuxing
    /// cannot see and H.264's decoder conceals unless its errors are fatal.
    static func damage(_ file: Data, at pictures: [(frame: Int, position: Int, size: Int)]) -> Data {
        var bytes = file
        for picture in pictures {
            for offset in (picture.position + 16)..<(picture.position + picture.size - 4) { bytes[offset] ^= 0x5A }
        }
        return bytes
    }
}
