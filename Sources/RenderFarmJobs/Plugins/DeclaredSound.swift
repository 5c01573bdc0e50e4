import RenderFarmPluginABI
import StrictJSON

/// One sound a layer plays, as its plugin declared it (ABI `sounds`): an audio stream of one of the
/// layer's input files and the part of it heard at each time of the layer. The host mixes it; the
/// plugin's id never matters.
package struct DeclaredSound: Sendable, Equatable {
    /// As the plugin named it: absolute, or relative to the job's folder; one of the layer's input files.
    package var file: String
    /// The audio stream's index in the file; nil for its first audio stream.
    package var stream: Int?
    /// Decibels.
    package var gain: Double
    /// Layer seconds at which `sourceStart` is heard.
    package var start: Double
    /// Seconds of the file's timeline.
    package var sourceStart: Double
    /// Seconds of the file played; `.infinity` to its end.
    package var sourceLength: Double
    /// File seconds per layer second.
    package var speed: Double
    package var loops: Bool

    /// The ranges the ABI allows (renderfarm_plugin.h, `rf_sound`).
    package static let gains = -96.0...24.0
    package static let speeds = 0.01...100.0
    /// A day of file time either way: far more than any file a plugin plays holds (a container's first
    /// timestamp may be below 0; the host hears silence before the file's 0 s).
    package static let sourceTimes = -86_400.0..<86_400.0
    static let streams = 0..<4_096
    /// Sounds of one layer, at most.
    package static let perLayer = 64

    /// Why a declared sound is refused: the layer's problem, as create's would be.
    package struct Problem: Error, Equatable {
        package var message: String
    }

    /// Times closer than this count as equal (the footage rule counts the same): a source that loops starts
    /// again when a rounding error short of its length.
    static let sameTime = 1e-7

    /// The seconds of the file heard at layer time `local`, or nil when it is silent then.
    package func sourceTime(at local: Double) -> Double? {
        let since = local - start
        guard since > -Self.sameTime else { return nil }
        var elapsed = max(0, since) * speed
        if loops {
            let plays = ((elapsed + Self.sameTime) / sourceLength).rounded(.down)
            elapsed = max(0, elapsed - plays * sourceLength)
        } else if elapsed + Self.sameTime >= sourceLength {
            return nil
        }
        return sourceStart + elapsed
    }

    /// A sound whose every number is in its range, else what is wrong (a problem of the layer, as create's are).
    package static func checked(
        file: String, stream: Int?, gain: Double, start: Double, sourceStart: Double, sourceLength: Double,
        speed: Double, loops: Bool
    ) -> Result<DeclaredSound, Problem> {
        let sound = DeclaredSound(
            file: file, stream: stream, gain: gain, start: start, sourceStart: sourceStart,
            sourceLength: sourceLength, speed: speed, loops: loops)
        let problem: String? =
            if file.isEmpty || file.utf8.count > 4_096 || file.contains("\0") {
                "its sound names no file (a path of 1…4096 bytes)"
            } else if let stream, !streams.contains(stream) {
                "its sound \(file) names stream \(stream); a stream is 0…\(streams.upperBound - 1), or -1 for the first"
            } else if !gains.contains(gain) {
                "its sound \(file) has gain \(gain) dB; a sound's gain is \(gains.lowerBound)…\(gains.upperBound)"
            } else if !start.isFinite || abs(start) > sourceTimes.upperBound {
                "its sound \(file) starts at layer time \(start); it must be finite, within a day"
            } else if !sourceTimes.contains(sourceStart) {
                "its sound \(file) is played from \(sourceStart) s of the file; it must be within a day of its 0 s"
            } else if !(sourceLength > 0) || (loops && !sourceLength.isFinite) {
                "its sound \(file) plays \(sourceLength) s of the file; it must be > 0\(loops ? ", and finite as it loops" : "")"
            } else if !speeds.contains(speed) {
                "its sound \(file) plays at speed \(speed); a sound's speed is \(speeds.lowerBound)…\(speeds.upperBound)"
            } else {
                nil
            }
        return problem.map { .failure(Problem(message: $0)) } ?? .success(sound)
    }

    /// The sound a plugin handed the host, checked; a problem for a null pointer, a size too small or no file.
    static func checked(_ pointer: UnsafePointer<rf_sound>?) -> Result<DeclaredSound, Problem> {
        guard let pointer else { return .failure(Problem(message: "its sound: the plugin passed none (NULL)")) }
        let size = Int(pointer.pointee.struct_size)
        guard let end = MemoryLayout<rf_sound>.offset(of: \rf_sound.loop), size >= end + MemoryLayout<UInt32>.size
        else { return .failure(Problem(message: "its sound: struct_size is \(size); set it to sizeof(rf_sound)")) }
        let sound = pointer.pointee
        guard let name = sound.file else { return .failure(Problem(message: "its sound names no file")) }
        return checked(
            file: String(cString: name), stream: sound.stream < 0 ? nil : Int(sound.stream), gain: sound.gain,
            start: sound.start, sourceStart: sound.source_start, sourceLength: sound.source_length,
            speed: sound.speed, loops: sound.loop != 0)
    }

    /// How a planning worker sends it (`IsolatedPlanner`): JSON, without infinity.
    package var json: JSONValue {
        var object: JSONObject = [
            "file": .string(file), "gain": .number(gain), "start": .number(start),
            "sourceStart": .number(sourceStart), "speed": .number(speed), "loop": .bool(loops),
        ]
        if let stream { object["stream"] = .number(Double(stream)) }
        if sourceLength.isFinite { object["sourceLength"] = .number(sourceLength) }
        return .object(object)
    }

    /// A sound read back from `json`, checked as the plugin's own was; nil when it is not one.
    package init?(json: JSONValue) {
        guard let object = json.objectValue, let file = object["file"]?.stringValue,
            let gain = object["gain"]?.doubleValue, let start = object["start"]?.doubleValue,
            let sourceStart = object["sourceStart"]?.doubleValue, let speed = object["speed"]?.doubleValue,
            case .bool(let loops)? = object["loop"]
        else { return nil }
        var stream: Int?
        if let value = object["stream"] {
            guard let number = value.doubleValue, number == number.rounded(), number >= 0,
                number < Double(Self.streams.upperBound)
            else { return nil }
            stream = Int(number)
        }
        let length = object["sourceLength"].map { $0.doubleValue ?? .nan } ?? .infinity
        let checked = Self.checked(
            file: file, stream: stream, gain: gain, start: start, sourceStart: sourceStart, sourceLength: length,
            speed: speed, loops: loops)
        guard case .success(let sound) = checked else { return nil }
        self = sound
    }

    private init(
        file: String, stream: Int?, gain: Double, start: Double, sourceStart: Double, sourceLength: Double,
        speed: Double, loops: Bool
    ) {
        self.file = file
        self.stream = stream
        self.gain = gain
        self.start = start
        self.sourceStart = sourceStart
        self.sourceLength = sourceLength
        self.speed = speed
        self.loops = loops
    }
}
