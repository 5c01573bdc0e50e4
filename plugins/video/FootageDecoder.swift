import CLibAV
import EffectKit
import FootageTiming
import Glibc

/// One demuxer and decoder over a footage file: lists its frames (`timeline()`) and decodes frame n,
/// forward from where it stands when n follows closely, else from the keyframe before n.
///
/// Owns its libav contexts and descriptor; not thread-safe: `FootagePlayer` lends it to one thread at a time.
final class FootageDecoder: FootageSource {
    let name: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let descriptor: Int32
    /// The errors the demuxer logs (`rf_av_errors`): damage it skips over rather than returns.
    private let errors = UnsafeMutablePointer<rf_av_errors>.allocate(capacity: 1)
    private(set) var stream: Int32 = -1
    /// The first audio stream's index: the clip's sound (`VideoEffect.sounds`); nil when it has none.
    private(set) var audioStream: Int?
    /// The decoder used (`libvpx-vp9` for VP9 with an alpha channel).
    private(set) var decoderName = ""
    private(set) var width = 0
    private(set) var height = 0
    private(set) var timeBase: (num: Int32, den: Int32) = (0, 1)
    /// How the pictures turn for display (the stream's display matrix).
    private(set) var orientation = FootageOrientation.upright
    /// The width of a stored pixel on screen, its height being 1: the stream's sample aspect ratio (1 but for
    /// anamorphic video).
    private(set) var pixelAspect = 1.0
    /// The last frame the decoder returned, nil after a seek.
    private var position: Int?
    private var flushed = false
    /// The keyframe the last seek went to, and the frame of the last packet sent to the decoder.
    private var start = 0
    private var sent = 0

    /// The largest picture decoded: 8K UHD.
    static let maxSide = 8192
    static let maxPixels = 7680 * 4320
    /// The most frames a clip may have: ten hours at 60 fps.
    static let maxFrames = 2_160_000
    /// Bytes the demuxer may read to identify the streams.
    static let probeBytes: Int64 = 16 << 20

    /// Opens the file and its decoder. Every property has its value before the first check, so a refusal
    /// runs `deinit`, which frees whatever was opened.
    init(_ file: FootageFile) throws(EffectError) {
        name = file.name
        errors.initialize(to: rf_av_errors())
        _ = Self.logRouted
        descriptor = try file.reader()
        let status = rf_av_open(descriptor, Self.probeBytes, errors, &format)
        guard status >= 0, let opened = format else {
            throw EffectError(
                parameter: "file",
                "\(file.name) is not a readable MP4, MOV, WebM, MKV, GIF or APNG file (\(Self.text(status)))")
        }
        var chosen: Int32 = -1
        for index in 0..<Int(opened.pointee.nb_streams) {
            guard let stream = opened.pointee.streams[index], let parameters = stream.pointee.codecpar else { continue }
            if parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO, audioStream == nil { audioStream = index }
            if parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO, chosen < 0,
                stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
            {
                chosen = Int32(index)
            }
        }
        stream = chosen
        guard chosen >= 0, let stream = opened.pointee.streams[Int(chosen)], let parameters = stream.pointee.codecpar
        else { throw EffectError(parameter: "file", "\(file.name) has no video stream") }
        (width, height) = (Int(parameters.pointee.width), Int(parameters.pointee.height))
        guard width > 0, height > 0 else {
            throw EffectError(
                parameter: "file",
                "\(file.name) states no picture size for its video (cut off or damaged); export it again")
        }
        guard width <= Self.maxSide, height <= Self.maxSide, width * height <= Self.maxPixels
        else {
            throw EffectError(
                parameter: "file",
                "\(file.name) is \(width) × \(height) pixels; the limit is \(Self.maxSide) a side and 7680 × 4320")
        }
        var matrixBytes = 0
        if let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &matrixBytes), matrixBytes >= 36 {
            let matrix = (0..<9).map { UnsafeRawPointer(data).loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self) }
            guard let turned = FootageOrientation(displayMatrix: matrix) else {
                throw EffectError(
                    parameter: "file",
                    "\(file.name) has a display matrix that turns its pictures by other than a multiple of 90° "
                        + "(or scales them); export it upright")
            }
            orientation = turned
        }
        // FFmpeg's players' rule: the container's ratio first, then the stream's; unknown or absurd ones are 1.
        let aspect = av_guess_sample_aspect_ratio(opened, stream, nil)
        if aspect.num > 0, aspect.den > 0, (0.01...100).contains(Double(aspect.num) / Double(aspect.den)) {
            pixelAspect = Double(aspect.num) / Double(aspect.den)
        }
        timeBase = (stream.pointee.time_base.num, stream.pointee.time_base.den)
        guard timeBase.num > 0, timeBase.den > 0 else {
            throw EffectError(parameter: "file", "\(file.name) has no time base for its video")
        }
        // FFmpeg's own VP9 decoder drops the alpha plane WebM stores beside the picture; libvpx's keeps it.
        let alpha = av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0).map { String(cString: $0.pointee.value) }
        let decoder: UnsafePointer<AVCodec>?
        if parameters.pointee.codec_id == AV_CODEC_ID_VP9, alpha == "1" {
            decoder = avcodec_find_decoder_by_name("libvpx-vp9")
            guard decoder != nil else {
                throw EffectError(
                    parameter: "file", "\(file.name) is VP9 with alpha, which needs FFmpeg's libvpx-vp9 decoder")
            }
        } else {
            decoder = avcodec_find_decoder(parameters.pointee.codec_id)
        }
        guard let decoder else {
            let codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw EffectError(parameter: "file", "\(file.name): no decoder for its \(codecName) video")
        }
        decoderName = String(cString: decoder.pointee.name)
        codec = avcodec_alloc_context3(decoder)
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        guard let codec, packet != nil, frame != nil else { throw EffectError("out of memory opening \(file.name)") }
        guard avcodec_parameters_to_context(codec, parameters) >= 0 else {
            throw EffectError(parameter: "file", "\(file.name): the decoder refuses the stream's parameters")
        }
        // One thread: workers already decode in parallel, and a frame-threaded decoder would start threads
        // a sandboxed worker may not be allowed to create.
        codec.pointee.thread_count = 1
        codec.pointee.pkt_timebase = stream.pointee.time_base
        // The decoder's errors are fatal: damage inside the stream fails the frames that show it instead
        // of being concealed (drawn from neighbouring blocks with no error), which no check before the
        // render can rule out past the part it decodes.
        codec.pointee.err_recognition |= AV_EF_EXPLODE
        let opening = avcodec_open2(codec, decoder, nil)
        guard opening >= 0 else {
            throw EffectError(
                parameter: "file", "\(file.name): the \(decoderName) decoder cannot open (\(Self.text(opening)))")
        }
    }

    deinit {
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        rf_av_close(&format)
        errors.deallocate()
        close(descriptor)
    }

    /// FFmpeg's own log would print each refusal twice, unlocated: it prints nothing, its codes become the
    /// messages instead, and a demuxer's logged errors are counted (`rf_av_log`). Set once per process.
    private static let logRouted: Void = rf_av_log_errors_only()

    /// Every frame of the stream, read by demuxing the whole file once; refuses a file that does not read to
    /// its end, that ends well before its container says, or whose frames lack timestamps.
    func timeline() throws(EffectError) -> FootageTimeline {
        guard let format, let packet else { throw EffectError("the decoder is closed") }
        var timestamps: [Int64] = []
        var keyframes = Set<Int64>()
        var lastDuration: Int64 = 0
        // Where the demuxer first logged an error: it met damage and skipped past it, so frames are missing
        // though it read on, or the file ended inside a frame (cut off). Told after the checks for a file cut
        // off, whose own messages say more.
        var damage: EffectError?
        while true {
            let status = av_read_frame(format, packet)
            if damage == nil, errors.pointee.count > 0 {
                let said = withUnsafeBytes(of: errors.pointee.first) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                let cut = format.pointee.pb.map { avio_feof($0) != 0 } ?? false
                damage = EffectError(
                    parameter: "file",
                    "\(name) is \(cut ? "truncated" : "damaged") after \(timestamps.count) frames (\(said)); export it again"
                )
            }
            if status == RF_AVERROR_EOF { break }
            guard status >= 0 else {
                throw EffectError(
                    parameter: "file",
                    "\(name) is damaged after \(timestamps.count) frames (\(Self.text(status))); export it again")
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream else { continue }
            // Frames an edit list cuts off are decoded for their references, never shown.
            if packet.pointee.flags & AV_PKT_FLAG_DISCARD != 0 { continue }
            guard packet.pointee.pts != RF_AV_NOPTS_VALUE else {
                throw EffectError(parameter: "file", "\(name): frame \(timestamps.count) has no presentation time")
            }
            timestamps.append(packet.pointee.pts)
            if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 { keyframes.insert(packet.pointee.pts) }
            guard timestamps.count <= Self.maxFrames else {
                throw EffectError(parameter: "file", "\(name) has more than \(Self.maxFrames) frames")
            }
            lastDuration = packet.pointee.duration
        }
        guard !timestamps.isEmpty else { throw EffectError(parameter: "file", "\(name) has no video frames") }
        timestamps.sort()
        for index in timestamps.indices.dropFirst() where timestamps[index] == timestamps[index - 1] {
            throw EffectError(
                parameter: "file", "\(name): frames \(index - 1) and \(index) have the same presentation time")
        }
        if let entries = streamPointer.map({ avformat_index_get_entries_count($0) }), entries > timestamps.count {
            throw EffectError(
                parameter: "file",
                "\(name) is truncated: its index lists \(entries) frames, the file holds \(timestamps.count); export it again"
            )
        }
        let timeline = FootageTimeline(
            timestamps: timestamps, keyframes: keyframes, lastDuration: lastDuration, timeBase: timeBase)
        // A container that states the video's length (Matroska, WebM) and whose frames end more than a second
        // short is cut off. The file's length counts only when the video is its one stream: an audio track
        // may rightly run longer.
        var stated: Double?
        if let video = streamPointer, video.pointee.duration > 0, video.pointee.duration != RF_AV_NOPTS_VALUE {
            stated = Double(video.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
        } else if let video = streamPointer, let tag = av_dict_get(video.pointee.metadata, "DURATION", nil, 0),
            let seconds = Self.clockSeconds(String(cString: tag.pointee.value))
        {
            // Matroska's per-track DURATION tag, "HH:MM:SS.fraction", as FFmpeg writes it.
            stated = seconds
        } else if format.pointee.nb_streams == 1, format.pointee.duration > 0 {
            stated = Double(format.pointee.duration) / Double(AV_TIME_BASE)
        }
        if let stated {
            if timeline.duration + 1 < stated {
                throw EffectError(
                    parameter: "file",
                    "\(name) is truncated: its frames end at \(FootageTimeline.shown(timeline.duration)) s, the container says "
                        + "\(FootageTimeline.shown(stated)) s; export it again")
            }
        }
        if let damage { throw damage }
        return timeline
    }

    /// Decodes frames `frames` of `timeline` (from the keyframe before the first) and refuses the file at the
    /// first picture the decoder finds damaged: damage inside a stream that demuxing cannot see, which the
    /// decoder would otherwise hide by concealment (drawing the damaged blocks from neighbouring ones).
    /// `keyframesOnly` decodes only the keyframes, for a part too long to decode at every check. The loop
    /// filter is skipped: it finds no errors and costs a sixth of the decode. For a decoder of its own: it
    /// changes the decoder's settings.
    func check(_ frames: ClosedRange<Int>, of timeline: FootageTimeline, keyframesOnly: Bool) throws(EffectError) {
        guard let format, let codec, let packet, let frame else { throw EffectError("the decoder is closed") }
        codec.pointee.skip_loop_filter = AVDISCARD_ALL
        try seek(to: timeline.keyframe(before: frames.lowerBound), of: timeline)
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 {
                let index = timeline.frame(timestamp: rf_av_frame_time(frame))
                av_frame_unref(frame)
                if let index, index >= frames.upperBound { return }
                continue
            }
            if received == RF_AVERROR_EOF { return }
            guard received == RF_AVERROR_EAGAIN || leading else { throw damaged(received, of: timeline) }
            guard !flushed else { return }
            let read = av_read_frame(format, packet)
            guard read >= 0 || read == RF_AVERROR_EOF else { throw damaged(read, of: timeline) }
            defer { av_packet_unref(packet) }
            if read >= 0, packet.pointee.stream_index != stream { continue }
            let index = read >= 0 ? timeline.frame(timestamp: packet.pointee.pts) : nil
            if read == RF_AVERROR_EOF || (keyframesOnly && (index ?? 0) > frames.upperBound) {
                flushed = true
                _ = avcodec_send_packet(codec, nil)
                continue
            }
            if keyframesOnly, packet.pointee.flags & AV_PKT_FLAG_KEY == 0 { continue }
            if let index { sent = index }
            let status = avcodec_send_packet(codec, packet)
            guard status >= 0 || status == RF_AVERROR_EAGAIN || leading else { throw damaged(status, of: timeline) }
        }
    }

    /// Pictures shown before the keyframe decoding started from (an open GOP's leading pictures) lack their
    /// references after the seek, which is no damage; they are never shown from this start either.
    private var leading: Bool { sent < start }

    /// The decoder's error `status` as damage at the frame of the last packet sent.
    private func damaged(_ status: Int32, of timeline: FootageTimeline) -> EffectError {
        EffectError(
            parameter: "file",
            "\(name) is damaged at frame \(sent) (\(FootageTimeline.shown(timeline.seconds[sent])) s): the decoder says "
                + "\(Self.text(status)); export it again")
    }

    /// Decodes frame `index` of `timeline`. A decoder that failed is not trusted to go on: the next frame is
    /// decoded from a keyframe again, so every frame decoded through a damaged picture fails with it, and none
    /// is drawn from what the damaged one left in the decoder.
    func frame(_ index: Int, of timeline: FootageTimeline) throws(EffectError) -> any ConvertibleFrame {
        do throws(EffectError) {
            // Forward from where the decoder stands, when it stands before the frame with no keyframe between.
            if let position, position < index, timeline.keyframe(before: index) <= position,
                let picture = try decode(until: index, of: timeline)
            {
                return picture
            }
            // Else from the keyframe before the frame; a frame missed after that seek (an open GOP's leading
            // pictures) starts again one keyframe earlier.
            var earlier = 0
            while true {
                let keyframe = timeline.keyframe(before: index, earlier: earlier)
                try seek(to: keyframe, of: timeline)
                if let picture = try decode(until: index, of: timeline) { return picture }
                guard keyframe > 0 else {
                    let time = FootageTimeline.shown(timeline.seconds[index])
                    throw EffectError("\(name): frame \(index) (\(time) s) cannot be decoded")
                }
                earlier += 1
            }
        } catch {
            position = nil
            throw error
        }
    }

    /// Decodes until frame `index` comes out, or nil when a later frame comes first or the stream ends.
    private func decode(until index: Int, of timeline: FootageTimeline) throws(EffectError) -> DecodedFrame? {
        guard let format, let codec, let packet, let frame else { throw EffectError("the decoder is closed") }
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 {
                defer { av_frame_unref(frame) }
                guard let decoded = timeline.frame(timestamp: rf_av_frame_time(frame)) else { continue }
                position = decoded
                if decoded == index {
                    guard let copy = DecodedFrame(frame) else { throw EffectError("out of memory decoding \(name)") }
                    return copy
                }
                if decoded > index { return nil }
                continue
            }
            if received == RF_AVERROR_EOF { return nil }
            guard received == RF_AVERROR_EAGAIN || leading else { throw damaged(received, of: timeline) }
            guard !flushed else { return nil }
            let read = av_read_frame(format, packet)
            if read == RF_AVERROR_EOF {
                flushed = true
                _ = avcodec_send_packet(codec, nil)
                continue
            }
            guard read >= 0 else {
                throw EffectError("\(name): reading failed before frame \(index) (\(Self.text(read)))")
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream else { continue }
            if let frame = timeline.frame(timestamp: packet.pointee.pts) { sent = frame }
            let status = avcodec_send_packet(codec, packet)
            guard status >= 0 || status == RF_AVERROR_EAGAIN || leading else { throw damaged(status, of: timeline) }
        }
    }

    /// Goes to `keyframe` of `timeline`: the next packet read is its.
    private func seek(to keyframe: Int, of timeline: FootageTimeline) throws(EffectError) {
        guard let format, let codec else { throw EffectError("the decoder is closed") }
        let status = av_seek_frame(format, stream, timeline.timestamps[keyframe], AVSEEK_FLAG_BACKWARD)
        guard status >= 0 else { throw EffectError("\(name): cannot seek (\(Self.text(status)))") }
        avcodec_flush_buffers(codec)
        position = nil
        flushed = false
        (start, sent) = (keyframe, keyframe)
    }

    private var streamPointer: UnsafeMutablePointer<AVStream>? {
        guard let format, stream >= 0 else { return nil }
        return format.pointee.streams[Int(stream)]
    }

    static func text(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        rf_av_error_text(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "HH:MM:SS.fraction" in seconds; nil for anything else.
    static func clockSeconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let hours = Double(parts[0]), let minutes = Double(parts[1]),
            let seconds = Double(parts[2]), hours >= 0, minutes >= 0, seconds >= 0
        else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    }
}
