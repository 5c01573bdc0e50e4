import StrictJSON

/// A job's `audio` section (<doc:Sound>): a music bed and sounds played at given times or at each
/// event of a log, mixed when a video is made. Sound never changes a frame.
package struct AudioSpec: Sendable, Equatable, Encodable {
    package var music: Music?
    package var sounds: [Sound]

    /// Limits that keep a hostile job from exhausting the machine.
    package enum Limits {
        package static let maxSounds = 64
        package static let maxTimes = 100_000
        package static let maxVoices = 256
        /// Gains in dB.
        package static let gain = -96.0...24.0
        /// The longest mix, in seconds: the mix and the music are held in memory.
        package static let maxMixSeconds = 600.0
    }

    /// The bed: one file played once from `start` (job seconds), `trimIn`…`trimOut` of it (file
    /// seconds), faded in from its start and out towards its end.
    package struct Music: Sendable, Equatable, Encodable {
        package var file: String
        package var start: Double
        package var trimIn: Double
        /// nil: to the end of the file.
        package var trimOut: Double?
        /// dB.
        package var gain: Double
        package var fadeIn: Double
        package var fadeOut: Double
    }

    /// One sound file played at each of some times.
    package struct Sound: Sendable, Equatable, Encodable {
        package var file: String
        package var times: Times
        /// dB.
        package var gain: Double
        /// The most voices of this sound heard at once; nil for no limit.
        package var maxVoices: Int?

        package enum Times: Sendable, Equatable, Encodable {
            /// Job seconds, as written.
            case at([Double])
            /// At each of a layer's moments (ABI `moments`), `offset` seconds after it.
            case moment(MomentReference)
            /// An event log as the effects read it (a file name or an inline list), read by the host
            /// when the mix is made (`SoundEvents`).
            case events(JSONValue)
        }
    }

    /// `"at": {"layer": "drop", "moment": "land", "offset": 0}`: a sound played at each moment of that name of
    /// the layer of that name, through the layer's time.
    package struct MomentReference: Sendable, Equatable, Encodable {
        package var layer: String
        package var moment: String
        /// Seconds after each moment, −60…60.
        package var offset: Double
    }

    /// The columns a sound reads of its event log: each event's time and its own gain (`SoundEvents`).
    package static let eventColumns = ["time", "gain"]

    static let keys = (
        section: ["music", "sounds"], music: ["file", "start", "trim", "gain", "fadeIn", "fadeOut"],
        sound: ["file", "at", "events", "gain", "maxVoices"]
    )

    /// The `audio` section of `parent`, or nil when it has none (problems go to `parent.issues`).
    package static func decode(_ parent: ObjectReader) -> AudioSpec? {
        guard parent.object["audio"] != nil, let reader = parent.object("audio") else { return nil }
        reader.rejectUnknownKeys(keys.section)
        let music = reader.object["music"] == nil ? nil : reader.object("music").flatMap(decodeMusic)
        var sounds: [Sound] = []
        if let value = reader.object["sounds"] {
            if let list = value.arrayValue {
                if list.count > Limits.maxSounds {
                    reader.issues.add(reader.childPath("sounds"), "\(list.count) sounds; at most \(Limits.maxSounds)")
                }
                for (index, element) in list.prefix(Limits.maxSounds).enumerated() {
                    let path = "\(reader.childPath("sounds"))[\(index)]"
                    guard let object = element.objectValue else {
                        reader.issues.add(
                            path, "expected an object {\"file\", \"at\" or \"events\"}, got \(element.typeName)")
                        continue
                    }
                    if let sound = decodeSound(ObjectReader(object: object, path: path, issues: reader.issues)) {
                        sounds.append(sound)
                    }
                }
            } else {
                reader.issues.add(reader.childPath("sounds"), "expected a list, got \(value.typeName)")
            }
        }
        return AudioSpec(music: music, sounds: sounds)
    }

    private static func decodeMusic(_ reader: ObjectReader) -> Music? {
        reader.rejectUnknownKeys(keys.music)
        let file = reader.string("file", default: nil, maxLength: 1024)
        let start = reader.number("start", default: 0, in: 0...JobDecoder.Limits.maxDuration) ?? 0
        let gain = reader.number("gain", default: 0, in: Limits.gain) ?? 0
        let fadeIn = reader.number("fadeIn", default: 0, in: 0...JobDecoder.Limits.maxDuration) ?? 0
        let fadeOut = reader.number("fadeOut", default: 0, in: 0...JobDecoder.Limits.maxDuration) ?? 0
        var trimIn = 0.0
        var trimOut: Double?
        if reader.object["trim"] != nil, let trim = reader.object("trim") {
            trim.rejectUnknownKeys(["in", "out"])
            trimIn = trim.number("in", default: 0, in: 0...JobDecoder.Limits.maxDuration) ?? 0
            trimOut = trim.number("out", default: .infinity, in: 0...JobDecoder.Limits.maxDuration)
            if trimOut == .infinity { trimOut = nil }
            if let out = trimOut, out <= trimIn {
                trim.issues.add(
                    trim.childPath("out"),
                    "\(ObjectReader.format(out)) must be after trim.in (\(ObjectReader.format(trimIn)))")
            }
        }
        guard let file, checkFile(file, reader) else { return nil }
        return Music(
            file: file, start: start, trimIn: trimIn, trimOut: trimOut, gain: gain, fadeIn: fadeIn, fadeOut: fadeOut)
    }

    private static func decodeSound(_ reader: ObjectReader) -> Sound? {
        reader.rejectUnknownKeys(keys.sound)
        let file = reader.string("file", default: nil, maxLength: 1024)
        let gain = reader.number("gain", default: 0, in: Limits.gain) ?? 0
        let maxVoices =
            reader.object["maxVoices"] == nil
            ? nil : reader.integer("maxVoices", default: nil, in: 1...Limits.maxVoices)
        var times: Sound.Times?
        switch (reader.object["at"], reader.object["events"]) {
        case (.some, .some):
            reader.issues.add(reader.childPath("events"), "give either \"at\" or \"events\", not both")
        case (nil, nil):
            reader.issues.add(reader.path, "missing \"at\" (a list of job seconds) or \"events\" (an event log)")
        case (.some(let value), nil):
            if value.objectValue != nil, let at = reader.object("at") {
                times = decodeMoment(at).map(Sound.Times.moment)
            } else {
                times = decodeTimes(value, reader: reader).map(Sound.Times.at)
            }
        case (nil, .some(let value)):
            if value.stringValue != nil || value.arrayValue != nil {
                times = .events(value)
            } else {
                reader.issues.add(
                    reader.childPath("events"),
                    "expected a file name (.csv, .json, .jsonl) or a list of objects, got \(value.typeName)")
            }
        }
        guard let file, checkFile(file, reader), let times else { return nil }
        return Sound(file: file, times: times, gain: gain, maxVoices: maxVoices)
    }

    /// `{"layer": NAME, "moment": NAME, "offset": s}`; whether the layer and its moment exist is known once its
    /// plugin has made it (`MomentTimes`).
    private static func decodeMoment(_ reader: ObjectReader) -> MomentReference? {
        reader.rejectUnknownKeys(["layer", "moment", "offset"])
        guard let layer = reader.string("layer", default: nil, maxLength: 64),
            let moment = reader.string("moment", default: nil, maxLength: 32)
        else { return nil }
        guard DeclaredMoment.isName(moment) else {
            reader.issues.add(
                reader.childPath("moment"),
                "\"\(moment)\" is not a moment's name (1-32 of a-z, 0-9 and '-', starting with a letter)")
            return nil
        }
        let offset = reader.number("offset", default: 0, in: -60...60) ?? 0
        return MomentReference(layer: layer, moment: moment, offset: offset)
    }

    private static func decodeTimes(_ value: JSONValue, reader: ObjectReader) -> [Double]? {
        let path = reader.childPath("at")
        guard let list = value.arrayValue else {
            reader.issues.add(path, "expected a list of job seconds, got \(value.typeName)")
            return nil
        }
        guard list.count <= Limits.maxTimes else {
            reader.issues.add(path, "\(list.count) times; at most \(Limits.maxTimes)")
            return nil
        }
        var times: [Double] = []
        for (index, element) in list.enumerated() {
            guard let time = element.doubleValue, (0...JobDecoder.Limits.maxDuration).contains(time) else {
                reader.issues.add(
                    "\(path)[\(index)]",
                    "expected job seconds in \(ObjectReader.describe(0...JobDecoder.Limits.maxDuration)), "
                        + "got \(ObjectReader.show(element))")
                return nil
            }
            times.append(time)
        }
        return times
    }

    private static func checkFile(_ file: String, _ reader: ObjectReader) -> Bool {
        guard file.isEmpty || file.utf8.contains(0) else { return true }
        reader.issues.add(reader.childPath("file"), file.isEmpty ? "must not be empty" : "contains a NUL byte")
        return false
    }

    /// Problems that need the job's duration: a mix longer than the limit.
    package func check(duration: Double, path: String = "audio") -> [JobIssue] {
        guard duration > Limits.maxMixSeconds else { return [] }
        return [
            JobIssue(
                path: path,
                "a job with sound lasts at most \(ObjectReader.format(Limits.maxMixSeconds)) s (the mix is held in "
                    + "memory), this one \(ObjectReader.format(duration)) s")
        ]
    }
}
