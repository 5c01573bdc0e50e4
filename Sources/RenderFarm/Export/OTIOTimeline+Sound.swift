import Foundation
import RenderFarmSound
import StrictJSON

extension OTIOTimeline {
    /// The audio of a timeline (<doc:Sound>): the mix written beside it, and the music file where
    /// it is heard, each an `ExternalReference.1` on an audio track, timed in samples at 48 kHz.
    package struct SoundClips: Sendable {
        /// The mix's URL as seen from the timeline file.
        package var mixURL: String
        package var track: SoundTrack
        /// The music file's URL as seen from the timeline file, when the music is heard.
        package var musicURL: String?

        package init(mixURL: String, track: SoundTrack, musicURL: String?) {
            self.mixURL = mixURL
            self.track = track
            self.musicURL = musicURL
        }
    }

    static let soundSchemas = (gap: "Gap.1", externalReference: "ExternalReference.1")

    /// Track `A1` with the mix from the timeline's start; `A2` with the music after a gap, when heard.
    static func audioTracks(_ sound: SoundClips) -> [JSONValue] {
        let rate = Double(SoundMixer.rate)
        func range(_ start: Int, _ count: Int) -> JSONValue {
            timeRange(start: Double(start), duration: Double(count), rate: rate)
        }
        func clip(_ name: String, url: String, source: JSONValue, available: JSONValue) -> JSONValue {
            let reference: JSONObject = [
                "OTIO_SCHEMA": .string(soundSchemas.externalReference), "metadata": .object([:]),
                "name": .string(name), "available_range": available, "available_image_bounds": .null,
                "target_url": .string(url),
            ]
            var clip = item(schemas.clip, name: name, sourceRange: source)
            clip["media_reference"] = .object(reference)
            return .object(clip)
        }
        func track(_ name: String, _ children: [JSONValue]) -> JSONValue {
            var track = item(schemas.track, name: name, sourceRange: .null)
            track["children"] = .array(children)
            track["kind"] = "Audio"
            return .object(track)
        }
        let count = sound.track.span.count
        var tracks = [
            track("A1", [clip("mix", url: sound.mixURL, source: range(0, count), available: range(0, count))])
        ]
        if let music = sound.track.music, let url = sound.musicURL {
            var children: [JSONValue] = []
            if music.offset > 0 {
                children.append(.object(item(soundSchemas.gap, name: "", sourceRange: range(0, music.offset))))
            }
            children.append(clip("music", url: url, source: range(music.source, music.count), available: .null))
            tracks.append(track("A2", children))
        }
        return tracks
    }

    /// The URL of `file` seen from a timeline in `timelineFolder` (see `targetURLBase`).
    package static func url(of file: String, timelineFolder: String, absolute: Bool) -> String {
        let folder = (file as NSString).deletingLastPathComponent
        let base = targetURLBase(frames: folder, timelineFolder: timelineFolder, absolute: absolute)
        return (base == "./" ? "" : base) + (file as NSString).lastPathComponent
    }
}
