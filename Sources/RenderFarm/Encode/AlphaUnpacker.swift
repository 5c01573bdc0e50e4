import CPNGWriter
import FileInput
import FileOutput
import Foundation
import RenderFarmMedia
import RenderFarmOutput

/// What `renderfarm unpack-alpha` wrote.
package struct UnpackResult: Sendable {
    /// The folder holding `frame_00000.png`, `frame_00001.png`, …
    package var directory: String
    package var frames: Int
    package var config: VapConfig
    /// Where the config came from: `vapc box` or the sidecar file's path.
    package var configSource: String
    /// How the video's YUV was read: `bt601 tv`, `bt709 tv`, …
    package var colour: String
    /// The ffmpeg command that decoded the video.
    package var command: String
}

/// Turns an alpha-packed (VAP) MP4 back into the RGBA frames a VAP player shows: it reads the
/// config from the `vapc` box (or `<name>.vap.json` beside the video), decodes the frames with
/// ffmpeg using the matrix and range VAP's iOS player uses (BT.709 when the stream says so,
/// otherwise BT.601; limited range unless tagged full), and for each frame takes colour from
/// `rgbFrame` and alpha from the red channel of `aFrame`, both sampled bilinearly at the shown
/// size like the players' GPU textures. Colour in the file is premultiplied; the PNGs are
/// straight RGBA, like RenderFarm's own frames.
package enum AlphaUnpacker {
    /// zlib level of the written PNGs: they are for checking, not for keeping.
    static let compression: Int32 = 1
    /// The largest video read (it is read whole to find its boxes); gift animations are a few MB.
    static let maxVideoBytes = 1 << 30
    /// The largest sidecar config read; VAP's fusion configs with every frame listed are ~40 kB.
    static let maxConfigBytes = 16 << 20

    /// Unpacks `video` into `directory` (created when missing); `progress` gets the frames
    /// written and the frames the config announces.
    package static func unpack(
        _ video: String, into directory: String, ffmpeg: FFmpeg, progress: (Int, Int) -> Void = { _, _ in }
    ) throws(EncodeError) -> UnpackResult {
        let path = URL(fileURLWithPath: video).standardizedFileURL.path
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: maxVideoBytes)
        } catch {
            throw .notAlphaPacked(path: video, reason: "it \(error.reason)")
        }
        let (config, source) = try loadConfig(bytes, video: path)
        let found: VideoTrack?
        do {
            found = try MP4Boxes.videoTrack(in: bytes)
        } catch {
            throw .notAlphaPacked(path: video, reason: "not a readable MP4: \(error.reason)")
        }
        guard let track = found else { throw .notAlphaPacked(path: video, reason: "the MP4 has no video track") }
        guard track.width == config.videoWidth, track.height == config.videoHeight else {
            throw .notAlphaPacked(
                path: video,
                reason: "the video is \(track.width)x\(track.height) but its config says videoW \(config.videoWidth), "
                    + "videoH \(config.videoHeight)")
        }
        do {
            try AtomicFile.createDirectory(directory)
        } catch {
            throw .output(error)
        }
        let colour = (track.matrix == 1 ? "bt709" : "bt601", track.fullRange ? "pc" : "tv")
        let command = FFmpegCommand(arguments: [
            "-hide_banner", "-loglevel", "error", "-nostats", "-i", path, "-map", "0:v:0", "-vsync", "passthrough",
            "-vf", "scale=in_color_matrix=\(colour.0):in_range=\(colour.1),format=rgb24", "-f", "rawvideo",
            "-pix_fmt", "rgb24", "pipe:1",
        ])
        let process = try ffmpeg.start(command, in: "/", feedsInput: false)
        var frames = 0
        do {
            try writeFrames(from: process, config: config, into: directory, written: &frames, progress: progress)
        } catch {
            // Closing the pipe stops ffmpeg (EPIPE); its own error, if any, says less than ours.
            try? process.progressOutput?.close()
            try? process.finish()
            removeFrames(frames, in: directory)
            throw error
        }
        do throws(EncodeError) {
            try process.finish()
            guard frames == config.frames else {
                throw .notAlphaPacked(
                    path: video, reason: "it holds \(frames) frames but its config says f = \(config.frames)")
            }
        } catch {
            removeFrames(frames, in: directory)
            throw error
        }
        return UnpackResult(
            directory: directory, frames: frames, config: config, configSource: source,
            colour: "\(colour.0) \(colour.1)", command: command.shellLine)
    }

    /// The config from the `vapc` box, or else from the sidecar file.
    static func loadConfig(_ bytes: [UInt8], video: String) throws(EncodeError) -> (VapConfig, String) {
        let payload: ArraySlice<UInt8>?
        do {
            payload = try MP4Boxes.vapcPayload(in: bytes)
        } catch {
            throw .notAlphaPacked(path: video, reason: "not a readable MP4: \(error.reason)")
        }
        if let payload { return (try VapConfig(parsing: payload, source: video + " (vapc box)"), "vapc box") }
        let sidecar = EncodedVideo.configPath(forVideo: video)
        let data: [UInt8]
        do {
            data = try InputFile.read(sidecar, limit: maxConfigBytes)
        } catch .missing {
            throw .notAlphaPacked(path: video, reason: "it has no vapc box and there is no \(sidecar)")
        } catch {
            throw .notAlphaPacked(path: video, reason: "it has no vapc box and \(error.description)")
        }
        return (try VapConfig(parsing: data, source: sidecar), sidecar)
    }

    /// The name of frame `index` in `directory`.
    package static func framePath(_ index: Int, in directory: String) -> String {
        (directory as NSString).appendingPathComponent(String(format: "frame_%05d.png", index))
    }

    /// Removes the first `count` frames: an unpack that fails (a full disk, a short video) leaves none.
    private static func removeFrames(_ count: Int, in directory: String) {
        for index in 0..<count { unlink(framePath(index, in: directory)) }
    }

    /// Reads raw RGB frames from ffmpeg and writes one PNG per frame, counting them in `count`.
    private static func writeFrames(
        from process: FFmpegProcess, config: VapConfig, into directory: String, written count: inout Int,
        progress: (Int, Int) -> Void
    ) throws(EncodeError) {
        guard let descriptor = process.progressOutput?.fileDescriptor else { return }
        let compositor = PlayerCompositor(config: config)
        var frame = [UInt8](repeating: 0, count: config.videoWidth * config.videoHeight * 3)
        var pixels = [UInt32](repeating: 0, count: config.width * config.height)
        var encoder = rf_png_encoder()
        defer { rf_png_encoder_free(&encoder) }
        while try readFrame(descriptor, into: &frame) {
            compositor.compose(frame, into: &pixels)
            let failure: String? = pixels.withUnsafeBytes { raw in
                withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { message -> String? in
                    guard let base = message.baseAddress, let start = raw.baseAddress else { return "no memory" }
                    let status = rf_png_encode_argb32(
                        &encoder, start.assumingMemoryBound(to: UInt8.self), UInt32(config.width),
                        UInt32(config.height), config.width * 4, compression, RF_PNG_FILTER_NONE, nil, base,
                        message.count)
                    return status == 0 ? nil : String(cString: base)
                }
            }
            let file = framePath(count, in: directory)
            if let failure { throw .output(.io(path: file, reason: failure)) }
            do {
                try AtomicFile.write(UnsafeRawBufferPointer(start: encoder.data, count: encoder.length), to: file)
            } catch {
                throw .output(error)
            }
            count += 1
            progress(count, config.frames)
        }
    }

    /// Fills `frame` from `descriptor`; false at the end of the stream, throws on a partial frame.
    private static func readFrame(_ descriptor: Int32, into frame: inout [UInt8]) throws(EncodeError) -> Bool {
        let total = frame.count
        let filled: Int
        switch frame.withUnsafeMutableBytes({ DescriptorIO.readFully(descriptor, into: $0) }) {
        case .success(let count): filled = count
        case .failure(let error):
            throw .failed(command: "ffmpeg", status: 1, message: "reading frames from ffmpeg: \(error.reason)")
        }
        guard filled == 0 || filled == total else {
            throw .failed(command: "ffmpeg", status: 1, message: "ffmpeg stopped in the middle of a frame")
        }
        return filled == total
    }
}
