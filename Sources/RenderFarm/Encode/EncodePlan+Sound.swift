/// The sound track of an encode (<doc:Sound>): the mix is ffmpeg's second input, mapped beside the
/// video and encoded as the container expects.
extension EncodePlan {
    /// The mix as input 1, when the preset carries sound.
    var soundInputArguments: [String] {
        guard let sound, preset.carriesSound else { return [] }
        return ["-i", sound]
    }

    /// The mapping of input 1's sound, when there is one.
    var soundMap: [String]? { soundInputArguments.isEmpty ? nil : ["-map", "1:a"] }

    /// The filter graph and the streams mapped to the output: ffmpeg's own choice without sound.
    var streamArguments: [String] {
        let video: [String] =
            filterGraph.map { ["-filter_complex", $0, "-map", "[out]"] } ?? (soundMap == nil ? [] : ["-map", "0:v"])
        return video + (soundMap ?? [])
    }

    /// AAC in MP4 and HEVC's QuickTime, Opus in WebM, 16-bit PCM (the mix unchanged) beside ProRes.
    var soundCodecArguments: [String] {
        guard soundMap != nil else { return [] }
        switch preset {
        case .webmAlpha: return ["-c:a", "libopus", "-b:a", "160k"]
        case .prores4444: return ["-c:a", "pcm_s16le"]
        default: return ["-c:a", "aac", "-b:a", "192k"]
        }
    }
}

extension EncodePreset {
    /// Whether the container has a sound track: every preset but the animated images.
    package var carriesSound: Bool { self != .gif && self != .apng }
}
