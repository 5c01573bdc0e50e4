import CairoKit
import FileOutput
import Foundation
import Locking
import RenderFarmJobs
import RenderFarmPluginABI
import StrictJSON

extension PluginCheck {
    /// One rendered frame: straight ARGB32 rows as cairo holds them, and how long drawing took.
    ///
    /// A frame is megabytes, and the checks read every pixel of thousands of them: they read through a
    /// pointer (`alphas`) and compare with memcmp (`same`), since subscripting or comparing an array byte by
    /// byte goes through the generic standard library in a debug build, ten times slower than drawing.
    struct Frame: Sendable {
        var pixels: [UInt8]
        var stride: Int
        var milliseconds: Double

        var isBlank: Bool {
            var blank = true
            alphas { _, alpha in
                blank = alpha == 0
                return blank
            }
            return blank
        }

        /// Calls `body` with the byte offset and the alpha of each pixel in turn (ARGB32 in native, little-endian
        /// order: alpha is a pixel's fourth byte), until it returns false.
        func alphas(_ body: (_ offset: Int, _ alpha: UInt8) -> Bool) {
            pixels.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress else { return }
                var offset = 0
                while offset + 3 < bytes.count, body(offset, base[offset + 3]) { offset += 4 }
            }
        }

        /// Whether `other` holds the same bytes.
        func same(as other: Frame?) -> Bool { other.map { PluginCheck.same(pixels, $0.pixels) } ?? false }
    }

    /// Every check that calls the plugin: create/destroy, range ends, frames, threads,
    /// determinism, frame keys, cache, scale, backdrop, trace and timing.
    func exercise() -> [PluginFinding] {
        var findings: [PluginFinding] = []
        let (defaults, issues) = ParameterValidator.validate(setting.params, against: plugin.info, path: "params")
        guard issues.isEmpty else {
            let problems = issues.map(\.description).joined(separator: "; ")
            return [PluginFinding(.failure, "create", "the parameters do not validate: \(problems)")]
        }
        let given = setting.params.isEmpty ? "the defaults" : "the defaults and the given parameters"
        let instance: PluginInstance
        do {
            instance = try makeInstance(defaults)
        } catch {
            // A plugin whose defaults alone make no instance is checked with parameters that do.
            let hint = setting.params.isEmpty ? "; give parameters that make one with --params" : ""
            return [PluginFinding(.failure, "create", "create with \(given) failed: \(error.message)\(hint)")]
        }
        findings.append(PluginFinding(.pass, "create", "create and destroy with \(given)"))
        findings += rangeEndFindings(defaults)

        let (serial, rendered) = renderFrames(instance)
        findings.append(rendered)
        guard rendered.level != .failure else { return findings }
        if setting.frames.allSatisfy({ serial[$0]?.isBlank ?? true }) {
            findings.append(PluginFinding(.warning, "render", "every frame is fully transparent at the defaults"))
        }
        // Checks that compare two renders mean nothing once a frame drawn twice differs: their failures
        // would point away from the one bug (say rand() in render), so they become notes.
        let determinism = determinismFinding(instance, defaults, serial)
        let steady = determinism.level != .failure
        let threads =
            steady
            ? threadFinding(instance, defaults, serial)
            : PluginFinding(.note, "threads", "not checked: frames are not deterministic")
        findings += [determinism, threads]
        let unsteady =
            !steady
            ? "frames are not deterministic"
            : threads.level == .failure ? "frames are not deterministic on several threads" : nil
        var coverSeconds: Double?
        if let unsteady {
            findings += comparingFindings(instance, defaults, serial, skipped: unsteady)
        } else {
            findings.append(frameKeyFinding(instance, defaults))
            let coverStart = ContinuousClock.now
            findings += keysCoverParamsFindings(instance, defaults, serial)
            coverSeconds = plugin.frameKey == nil ? nil : (ContinuousClock.now - coverStart).seconds
            findings.append(cacheFinding(defaults, serial))
            findings.append(scaleFinding(defaults, serial))
            findings.append(backdropFinding(instance, serial))
        }
        findings += traceFindings(instance, serial, comparingPixels: unsteady == nil)
        let (memory, measured) = memoryFinding(instance)
        findings.append(memory)
        findings.append(timingFinding(serial, keysCoverSeconds: coverSeconds, memory: measured))
        return findings
    }

    /// A new instance with `params` (already validated), for the check's setting; `verifying`: it verifies
    /// its input (ABI `verify`), as in the process that checks a job.
    func makeInstance(_ params: JSONObject, verifying: Bool = true) throws(PluginCallError) -> PluginInstance {
        let setting = setting
        let directory = FileManager.default.currentDirectoryPath
        let result: Result<PluginInstance, PluginCallError> = directory.withCString { dir in
            let context = rf_context(
                width: setting.width, height: setting.height, scale: setting.scale, fps: setting.fps,
                duration: setting.duration, frame_count: UInt32(setting.frameCount), layer_start: 0,
                seed: setting.seed, job_dir: dir)
            return Result { () throws(PluginCallError) in
                try PluginInstance(plugin: plugin, params: params, context: context, verifying: verifying)
            }
        }
        return try result.get()
    }

    /// Draws frame `index` with `instance` alone on a transparent canvas, or over `backdrop` painted first.
    func draw(_ instance: PluginInstance, _ index: Int, over backdrop: Color? = nil) -> Result<Frame, PluginCallError> {
        let width = Int((setting.width * setting.scale).rounded())
        let height = Int((setting.height * setting.scale).rounded())
        let surface: ImageSurface
        let context: DrawingContext
        do {
            surface = try ImageSurface(width: width, height: height)
            context = try DrawingContext(surface: surface)
        } catch {
            return .failure(PluginCallError(status: -1, message: "cannot make a canvas: \(error)"))
        }
        if let backdrop {
            context.setSource(backdrop)
            context.paint()
        }
        let time = Double(index) / setting.fps
        let clock = ContinuousClock()
        let start = clock.now
        context.save()
        context.scale(setting.scale, setting.scale)
        let failure = instance.render(
            on: context.pointer, frame: rf_frame(index: UInt32(index), time: time, local: time))
        context.restore()
        let elapsed = clock.now - start
        if let failure { return .failure(failure) }
        surface.flush()
        let pixels = Array(UnsafeBufferPointer(start: surface.bytes, count: surface.stride * surface.height))
        return .success(Frame(pixels: pixels, stride: surface.stride, milliseconds: elapsed.seconds * 1000))
    }

    private func rangeEndFindings(_ defaults: JSONObject) -> [PluginFinding] {
        var findings: [PluginFinding] = []
        for parameter in plugin.info.parameters {
            let values = Self.rangeEnds(parameter)
            guard !values.isEmpty else { continue }
            var failures: [String] = []
            var needsOthers: [String] = []
            for value in values {
                var params = defaults
                params[parameter.name] = value
                do {
                    let instance = try makeInstance(params)
                    if case .failure(let error) = draw(instance, setting.frames[setting.frames.count / 2]) {
                        failures.append("\(value.serialized()): render failed: \(error.message)")
                    }
                } catch {
                    // A value that needs another parameter set (e.g. shape "image" needs `image`),
                    // refused with an error naming that parameter, is a dependency, not a fault.
                    let named = error.message.split(separator: ":").first.map(String.init) ?? ""
                    if error.status == Int32(RF_ERROR_PARAMS.rawValue), named != parameter.name,
                        plugin.info.parameter(named: named) != nil
                    {
                        needsOthers.append("\(value.serialized()) (create said \"\(error.message)\")")
                    } else {
                        failures.append("\(value.serialized()): create failed: \(error.message)")
                    }
                }
            }
            if !needsOthers.isEmpty {
                findings.append(
                    PluginFinding(
                        .note, "range.\(parameter.name)",
                        "needs other parameters at \(needsOthers.joined(separator: ", "))"))
            }
            let shown = values.map { $0.serialized() }.joined(separator: ", ")
            findings.append(
                failures.isEmpty
                    ? PluginFinding(.pass, "range.\(parameter.name)", "create, render and destroy at \(shown)")
                    : PluginFinding(.failure, "range.\(parameter.name)", failures.joined(separator: "; ")))
        }
        return findings
    }

    /// The values at the ends of a parameter's range (and every choice of an enum).
    static func rangeEnds(_ parameter: PluginParameter) -> [JSONValue] {
        let ends = [parameter.min, parameter.max].filter(\.isFinite)
        switch parameter.kind {
        case .number: return ends.map { .number($0) }
        case .integer:
            return [parameter.min.rounded(.up), parameter.max.rounded(.down)].filter(\.isFinite).map { .number($0) }
        case .point: return ends.map { .array([.number($0), .number($0)]) }
        case .size: return ends.filter { $0 > 0 }.map { .number($0) }
        case .numberList: return ends.map { .array([.number($0)]) }
        case .bool: return [.bool(false), .bool(true)]
        case .choice: return parameter.choices.map { .string($0) }
        case .colorList:
            return [max(0, parameter.min), parameter.max].filter { $0.isFinite && $0 <= 256 }
                .map { .array(Array(repeating: .string("#808080"), count: Int($0))) }
        case .color, .rect, .string, .json, .events: return []
        }
    }

    /// Frame keys (ABI `frame_key`) decide which frames are drawn at all, so a wrong key means
    /// wrong frames: every frame of the setting is keyed, by this and by a second instance, and
    /// frames that share a key must draw the same bytes (up to three of each key are drawn).
    func frameKeyFinding(_ instance: PluginInstance, _ defaults: JSONObject) -> PluginFinding {
        let keyless = PluginFinding(.note, "frame-keys", "reports no frame keys: every frame is drawn, even alike ones")
        guard plugin.frameKey != nil else { return keyless }
        let second: PluginInstance
        do {
            second = try makeInstance(defaults)
        } catch {
            return PluginFinding(.failure, "frame-keys", "a second create failed: \(error.message)")
        }
        var frames: [[UInt8]: [Int]] = [:]
        for index in 0..<setting.frameCount {
            let time = Double(index) / setting.fps
            let frame = rf_frame(index: UInt32(index), time: time, local: time)
            guard let key = instance.frameKey(frame: frame) else { continue }
            guard second.frameKey(frame: frame) == key else {
                return PluginFinding(.failure, "frame-keys", "frame \(index) has another key in a second instance")
            }
            frames[key, default: []].append(index)
        }
        let keyed = frames.values.reduce(0) { $0 + $1.count }
        guard keyed > 0 else { return keyless }
        for group in frames.values.sorted(by: { $0[0] < $1[0] }) where group.count > 1 {
            let drawn = [group[0], group[group.count / 2], group[group.count - 1]]
            guard case .success(let first) = draw(instance, drawn[0]) else {
                return PluginFinding(.failure, "frame-keys", "frame \(drawn[0]) failed to render")
            }
            for index in drawn.dropFirst() {
                guard case .success(let other) = draw(instance, index), other.same(as: first) else {
                    return PluginFinding(
                        .failure, "frame-keys",
                        "frames \(drawn[0]) and \(index) have one key but draw different bytes: the key must "
                            + "change whenever the drawing does")
                }
            }
        }
        return PluginFinding(
            .pass, "frame-keys",
            "\(keyed) of \(setting.frameCount) frames keyed, \(frames.count) distinct keys, the same in a second "
                + "instance; frames that share a key draw the same bytes")
    }

    /// A cache (ABI `prepare_with_cache`) may make frames come sooner but never change them: one
    /// instance fills a fresh cache folder up to the last frame, then each frame of the setting is
    /// drawn by an instance prepared for it alone from that cache, and the last again after every
    /// cache file was cut in half; all must equal the frames drawn without a cache.
    func cacheFinding(_ defaults: JSONObject, _ serial: [Int: Frame]) -> PluginFinding {
        guard plugin.prepareWithCache != nil else {
            return PluginFinding(.note, "cache", "keeps no cache (no prepare_with_cache)")
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("renderfarm-check-cache-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try AtomicFile.createDirectory(folder.path)
            let last = setting.frameCount - 1
            try makeInstance(defaults).prepare(frames: last...last, cache: folder.path)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            if let frame = try firstCachedFrameDiffering(
                from: serial, defaults, cache: folder.path, frames: setting.frames)
            {
                return PluginFinding(
                    .failure, "cache",
                    "frame \(frame) drawn after preparing from the cache differs from frame \(frame) drawn without")
            }
            for name in files {
                let path = folder.appendingPathComponent(name).path
                // fstat and ftruncate, not FileManager's attributes (which look the owner's name up on
                // nscd's socket) or truncate(2): the sandboxed worker may do neither.
                let file = open(path, O_WRONLY | O_CLOEXEC)
                guard file >= 0 else { continue }
                var status = stat()
                if fstat(file, &status) == 0 { ftruncate(file, status.st_size / 2) }
                close(file)
            }
            if let frame = try firstCachedFrameDiffering(from: serial, defaults, cache: folder.path, frames: [last]) {
                return PluginFinding(
                    .failure, "cache",
                    "frame \(frame) drawn from damaged cache files differs from frame \(frame) drawn "
                        + "without: a file that does not parse must be ignored")
            }
            guard !files.isEmpty else {
                return PluginFinding(
                    .pass, "cache",
                    "nothing kept for this setting up to frame \(last); frames prepared with the cache folder equal "
                        + "the frames drawn without")
            }
            return PluginFinding(
                .pass, "cache",
                "\(files.count) file\(files.count == 1 ? "" : "s") kept up to frame \(last); frames prepared from the "
                    + "cache, and from its files cut in half, equal the frames drawn without one")
        } catch {
            return PluginFinding(.failure, "cache", "preparing with a cache folder failed: \(error)")
        }
    }

    /// The first of `frames` that an instance prepared for it alone, with `cache`, draws other than `serial`.
    private func firstCachedFrameDiffering(
        from serial: [Int: Frame], _ defaults: JSONObject, cache: String, frames: [Int]
    ) throws -> Int? {
        for index in frames {
            let instance = try makeInstance(defaults)
            try instance.prepare(frames: index...index, cache: cache)
            guard case .success(let frame) = draw(instance, index), frame.same(as: serial[index]) else {
                return index
            }
        }
        return nil
    }

    /// The time per frame, and what the keys-cover-params and memory checks took and measured (their findings stay
    /// the same from run to run).
    private func timingFinding(_ serial: [Int: Frame], keysCoverSeconds: Double?, memory: String?) -> PluginFinding {
        let times = serial.values.map(\.milliseconds)
        let mean = times.reduce(0, +) / Double(max(1, times.count))
        let slowest = times.max() ?? 0
        let canvas = "\(Int(setting.width * setting.scale))×\(Int(setting.height * setting.scale))"
        var text = String(format: "%.2f ms per frame on average, %.2f ms at most (%@ pixels)", mean, slowest, canvas)
        if let keysCoverSeconds { text += String(format: "; keys-cover-params took %.2f s", keysCoverSeconds) }
        if let memory { text += "; memory: " + memory }
        return slowest > setting.slowFrameMilliseconds
            ? PluginFinding(.warning, "time", text + "; slower than \(Int(setting.slowFrameMilliseconds)) ms")
            : PluginFinding(.note, "time", text)
    }
}
