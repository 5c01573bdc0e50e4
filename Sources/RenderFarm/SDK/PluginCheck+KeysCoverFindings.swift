import Foundation
import RenderFarmPluginABI

extension PluginCheck {
    /// The finding's name.
    static let coverCheck = "keys-cover-params"

    /// The findings of a run: for a plugin that declares the flag, one failure per stale parameter (or a pass);
    /// for one that does not, a note saying which parameters its keys miss, or that it could declare it.
    func coverFindings(_ tally: CoverTally, declared: Bool) -> [PluginFinding] {
        let check = Self.coverCheck
        let refused = tally.refused == 0 ? "" : ", \(tally.refused) value\(tally.refused == 1 ? "" : "s") refused"
        let counts =
            "\(tally.edits) edits of \(tally.parameters) parameters and the job's duration\(refused); "
            + "\(tally.equalKeys) frames kept their keys, \(tally.drawn) of them drawn"
        let unproven = tally.unproven.isEmpty ? "" : "; not proven for " + tally.unproven.joined(separator: ", ")
        if declared {
            guard tally.stale.isEmpty else {
                return tally.stale.map { stale in
                    let advice =
                        stale.subject.hasPrefix("parameter")
                        ? "hash every parameter that shapes the drawing into the key"
                        : "hash what the job's duration changes in the drawing into the key"
                    return PluginFinding(
                        .failure, check,
                        "\(stale.subject) \(stale.change) changes the pixels of frame \(stale.frame) but not its key: "
                            + "\(advice), or do not declare RF_PLUGIN_KEYS_COVER_PARAMS")
                }
            }
            var findings = [
                PluginFinding(
                    .pass, check, "wherever an edit kept a frame's key, the frame kept its pixels (\(counts))")
            ]
            if !tally.unproven.isEmpty {
                findings.append(
                    PluginFinding(
                        .warning, check,
                        "declared but not proven for " + tally.unproven.joined(separator: ", ")))
            }
            return findings
        }
        guard tally.stale.isEmpty else {
            let missed = tally.stale.map { stale in
                "\(stale.subject) (\(stale.change): frame \(stale.frame)'s pixels change, its key does not)"
            }
            return [
                PluginFinding(
                    .note, check,
                    "keys do not cover \(missed.joined(separator: ", ")): the host redraws every frame of the layer on "
                        + "any parameter edit, which is correct without the flag (\(counts)\(unproven))")
            ]
        }
        return [
            PluginFinding(
                .note, check,
                "keys would cover the parameters (every perturbation that changed pixels changed keys): declare "
                    + "RF_PLUGIN_KEYS_COVER_PARAMS so an edit redraws only the frames it changes "
                    + "(\(counts)\(unproven))")
        ]
    }

    /// Whether two frames have the same bytes (memcmp: the array's own == compares element by element in a
    /// debug build, some ten times slower than drawing the frame).
    static func same(_ one: [UInt8], _ other: [UInt8]) -> Bool {
        guard one.count == other.count else { return false }
        return one.withUnsafeBytes { a in
            other.withUnsafeBytes { b in
                guard let a = a.baseAddress, let b = b.baseAddress else { return true }
                return memcmp(a, b, one.count) == 0
            }
        }
    }

    static func frame(_ index: Int, _ fps: Double) -> rf_frame {
        let time = Double(index) / fps
        return rf_frame(index: UInt32(index), time: time, local: time)
    }

    /// At most `count` of `frames`, evenly spread, the first and the last included.
    static func spread(_ frames: [Int], count: Int) -> [Int] {
        guard frames.count > count, count > 1 else { return frames }
        return (0..<count).map { frames[$0 * (frames.count - 1) / (count - 1)] }
    }

    /// `count` of `frames`: those in `first` (in order), then others evenly spread.
    static func chosen(_ frames: [Int], first: [Int], count: Int) -> [Int] {
        let available = Set(frames)
        var picked: [Int] = []
        for index in first + spread(frames, count: count) where available.contains(index) && !picked.contains(index) {
            picked.append(index)
            if picked.count == count { break }
        }
        return picked
    }

    /// The frames just before, at and after each of `times` (layer seconds), and a quarter, half, one and two
    /// seconds later, when an animation the edit starts has moved on.
    static func framesAround(_ times: [Double], fps: Double, count: Int) -> [Int] {
        let offsets = [0, -1, 1, fps / 4, fps / 2, fps, 2 * fps].map { Int($0.rounded()) }
        var frames: [Int] = []
        for time in times {
            let first = Int((time * fps).rounded(.up))
            for offset in offsets where (0..<count).contains(first + offset) && !frames.contains(first + offset) {
                frames.append(first + offset)
            }
        }
        return frames
    }

    /// The last frames of `count`: the end of a shorter or longer job.
    static func framesBefore(_ count: Int, fps: Double) -> [Int] {
        [1, 2, Int((fps / 2).rounded()), Int(fps.rounded())].map { count - $0 }.filter { $0 >= 0 }
    }
}
