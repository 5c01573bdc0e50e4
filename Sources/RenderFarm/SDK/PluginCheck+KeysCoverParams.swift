import Foundation
import Locking
import RenderFarmJobs
import RenderFarmPluginABI
import StrictJSON

/// `keys-cover-params`: whether a plugin's frame keys change wherever an edit of its parameters, or of the
/// job's duration, changes the pixels (`RF_PLUGIN_KEYS_COVER_PARAMS`). Each edit makes a second instance;
/// wherever both instances give a frame equal keys, they must draw it with the same bytes.
extension PluginCheck {
    /// The most frames keyed per edit, spread evenly over the setting (besides the frames where it shows).
    static let keysCoverKeyed = 61
    /// The most frames drawn per edit among those whose keys stay equal: where the edit shows first, then
    /// spread evenly.
    static let keysCoverDrawn = 4

    /// What the check counted over some edits.
    struct CoverTally: Sendable {
        var edits = 0
        var refused = 0
        var equalKeys = 0
        var drawn = 0
        var parameters = 0
        /// Parameters the check could not prove, each with why.
        var unproven: [String] = []
        /// Each subject whose keys missed an edit: the edit and the first frame drawn differently.
        var stale: [(subject: String, change: String, frame: Int)] = []

        mutating func add(_ other: CoverTally) {
            edits += other.edits
            refused += other.refused
            equalKeys += other.equalKeys
            drawn += other.drawn
            parameters += other.parameters
            unproven += other.unproven
            stale += other.stale
        }
    }

    /// The original instance's keys (empty: no key) and pixels, each asked for once, from any thread.
    struct CoverBaseline: Sendable {
        let instance: PluginInstance
        let keys = Locked<[Int: [UInt8]]>([:])
        let pixels = Locked<[Int: [UInt8]]>([:])
        /// Held around every create and destroy of an edited instance: the ABI lets a host render instances
        /// at once, but not create or destroy them.
        let lifecycle = Locked(())
    }

    func keysCoverParamsFindings(_ instance: PluginInstance, _ defaults: JSONObject, _ serial: [Int: Frame])
        -> [PluginFinding]
    {
        let declared = plugin.info.keysCoverParams
        let keyless =
            declared
            ? PluginFinding(
                .warning, Self.coverCheck,
                "declares RF_PLUGIN_KEYS_COVER_PARAMS but reports no frame keys: the flag changes nothing")
            : PluginFinding(
                .note, Self.coverCheck, "reports no frame keys: the layer's parameters fingerprint every frame")
        guard plugin.frameKey != nil else { return [keyless] }
        // The host hands a plugin its events checked and sorted; so do the edits.
        let (base, _) = Self.resolvingEvents(defaults, plugin.info)
        let original: PluginInstance
        do {
            original = base == defaults ? instance : try makeInstance(base)
        } catch {
            return [PluginFinding(.failure, Self.coverCheck, "create with the events in time order failed: \(error)")]
        }
        let baseline = CoverBaseline(instance: original)
        if original === instance {
            baseline.pixels.withLock { pixels in for (index, frame) in serial { pixels[index] = frame.pixels } }
        }
        let spread = Self.spread(Array(0..<setting.frameCount), count: Self.keysCoverKeyed)
        guard spread.contains(where: { key(baseline, $0) != nil }) else { return [keyless] }

        let scope = EditScope(duration: setting.duration, files: Set(original.inputFiles.map(EditScope.absolute)))
        var made: [(parameter: String?, edits: Result<[Edit], EditGap>)] = plugin.info.parameters.map {
            ($0.name, Self.edits(of: $0, from: base[$0.name], scope: scope))
        }
        let lengths = [setting.duration * 1.5, setting.duration / 2].filter { $0 * setting.fps >= 1 }
        let told = { (duration: Double) in
            "changed from \(Self.format(self.setting.duration)) s to \(Self.format(duration)) s"
        }
        made.append((nil, .success(lengths.map { Edit(nil, [.init(value: nil, change: told($0))], duration: $0) })))
        let groups = made
        let tallies = Locked<[Int: CoverTally]>([:])
        let prove = { @Sendable (index: Int) in
            var tally = CoverTally()
            switch groups[index].edits {
            case .failure(let gap):
                tally.unproven.append("\"\(groups[index].parameter ?? "")\" (\(gap.rawValue))")
            case .success(let edits):
                let accepted = self.prove(edits, from: base, baseline: baseline, tally: &tally)
                if let name = groups[index].parameter {
                    tally.parameters = 1
                    if accepted == 0 { tally.unproven.append("\"\(name)\" (every value was refused)") }
                }
            }
            tallies.withLock { $0[index] = tally }
        }
        // Edits of different parameters run at once (each on instances of its own) unless the plugin is unsafe.
        if plugin.info.threadSafety == .unsafe {
            groups.indices.forEach(prove)
        } else {
            DispatchQueue.concurrentPerform(iterations: groups.count, execute: prove)
        }
        var tally = CoverTally()
        tallies.withLock { tallies in for index in groups.indices { tallies[index].map { tally.add($0) } } }
        return coverFindings(tally, declared: declared)
    }

    /// Makes and compares each of `edits` until one shows stale keys; returns how many the plugin accepted.
    private func prove(
        _ edits: [Edit], from base: JSONObject, baseline: CoverBaseline, tally: inout CoverTally
    ) -> Int {
        var accepted = 0
        for edit in edits {
            var made = make(edit, from: base, baseline: baseline, tally: &tally)
            // The instance is released (and destroyed) under the lifecycle lock, after the last use of it below.
            defer { baseline.lifecycle.withLock { _ in made = nil } }
            guard let (other, check, change) = made else { continue }
            accepted += 1
            tally.edits += 1
            if let frame = staleFrame(other, check, edit, baseline: baseline, tally: &tally) {
                tally.stale.append((edit.subject, change, frame))
                break
            }
        }
        return accepted
    }

    /// The first frame where `other` (drawn by `check`) gives the original's key but other pixels; nil when none.
    private func staleFrame(
        _ other: PluginInstance, _ check: PluginCheck, _ edit: Edit, baseline: CoverBaseline, tally: inout CoverTally
    ) -> Int? {
        let count = Swift.min(setting.frameCount, check.setting.frameCount)
        let interest =
            Self.framesAround(edit.times, fps: setting.fps, count: count)
            + (edit.duration == nil ? [] : Self.framesBefore(count, fps: setting.fps))
        let keyed = Set(Self.spread(Array(0..<count), count: Self.keysCoverKeyed) + interest).sorted()
        let equal = keyed.filter { index in
            guard let original = key(baseline, index),
                let edited = other.frameKey(frame: Self.frame(index, setting.fps))
            else { return false }
            return original == edited
        }
        tally.equalKeys += equal.count
        for index in Self.chosen(equal, first: interest, count: Self.keysCoverDrawn) {
            guard let original = pixels(baseline, index), case .success(let drawn) = check.draw(other, index) else {
                continue
            }
            tally.drawn += 1
            if !Self.same(drawn.pixels, original) { return index }
        }
        return nil
    }

    /// The instance of the first of `edit`'s values the host and the plugin accept, the check that draws it
    /// (another duration for the duration edits) and how the edit is told; nil when every value is refused.
    private func make(_ edit: Edit, from base: JSONObject, baseline: CoverBaseline, tally: inout CoverTally)
        -> (PluginInstance, PluginCheck, String)?
    {
        var edited = setting
        if let duration = edit.duration { edited.duration = duration }
        let check = PluginCheck(plugin, setting: edited)
        for candidate in edit.candidates {
            var params = base
            if let parameter = edit.parameter { params[parameter] = candidate.value }
            let (resolved, eventIssues) = Self.resolvingEvents(params, plugin.info)
            let (filled, issues) = ParameterValidator.validate(resolved, against: plugin.info, path: "params")
            // Without verify: it may refuse input, but never changes a frame (the workers of `render --isolate`
            // draw without it), and it can cost more than the rest of an edit (the video effect decodes its clip).
            let instance =
                eventIssues.isEmpty && issues.isEmpty
                ? baseline.lifecycle.withLock { _ in try? check.makeInstance(filled, verifying: false) } : nil
            guard let instance else {
                tally.refused += 1
                continue
            }
            return (instance, check, candidate.change)
        }
        return nil
    }

    /// `params` with every events list checked and sorted as the host hands it to the plugin; unchanged when
    /// an events parameter names a file (the sandboxed check may read no file the plugin does not name).
    static func resolvingEvents(_ params: JSONObject, _ info: PluginInfo) -> (JSONObject, [JobIssue]) {
        let events = info.parameters.filter { $0.kind == .events }
        guard !events.isEmpty, !events.contains(where: { params[$0.name]?.stringValue != nil }) else {
            return (params, [])
        }
        return EventLog.resolve(
            params, parameters: info.parameters, path: "params", jobDirectory: FileManager.default.currentDirectoryPath)
    }

    /// The original's key of frame `index`, nil when it has none.
    private func key(_ baseline: CoverBaseline, _ index: Int) -> [UInt8]? {
        let key = baseline.keys.withLock { keys in
            if let known = keys[index] { return known }
            let key = baseline.instance.frameKey(frame: Self.frame(index, setting.fps)) ?? []
            keys[index] = key
            return key
        }
        return key.isEmpty ? nil : key
    }

    /// The original's pixels of frame `index`, nil when it fails to draw.
    private func pixels(_ baseline: CoverBaseline, _ index: Int) -> [UInt8]? {
        if let known = baseline.pixels.withLock({ $0[index] }) { return known }
        guard case .success(let frame) = draw(baseline.instance, index) else { return nil }
        baseline.pixels.withLock { $0[index] = frame.pixels }
        return frame.pixels
    }
}
