import Foundation
import Locking
import RenderFarmJobs
import StrictJSON

/// Determinism and thread safety: frames drawn again, by the same and by a second instance and on several
/// threads, must have the same bytes. Once they do not, every check that compares two renders is told as not
/// checked rather than failed, so the one finding that fails points at the bug.
extension PluginCheck {
    /// What the determinism failure tells an author: the usual cause and its fix.
    static let determinismAdvice =
        "draw random numbers in create from ctx->seed (rf_derive_seed), never rand() or the clock"

    /// The checks that compare two renders of a frame, each a note saying why it was not checked (`reason`);
    /// a check the plugin takes no part in (no frame keys, no cache) gives its usual note, drawing nothing.
    func comparingFindings(
        _ instance: PluginInstance, _ defaults: JSONObject, _ serial: [Int: Frame], skipped reason: String
    ) -> [PluginFinding] {
        let note = "not checked: \(reason)"
        let keyed = plugin.frameKey != nil
        return [
            keyed ? PluginFinding(.note, "frame-keys", note) : frameKeyFinding(instance, defaults)
        ]
            + (keyed
                ? [PluginFinding(.note, Self.coverCheck, note)] : keysCoverParamsFindings(instance, defaults, serial))
            + [
                plugin.prepareWithCache != nil ? PluginFinding(.note, "cache", note) : cacheFinding(defaults, serial),
                PluginFinding(.note, "scale", note),
                PluginFinding(.note, "backdrop", note),
            ]
    }

    func determinismFinding(
        _ instance: PluginInstance, _ defaults: JSONObject, _ serial: [Int: Frame]
    ) -> PluginFinding {
        let second: PluginInstance
        do {
            second = try makeInstance(defaults)
        } catch {
            return PluginFinding(.failure, "determinism", "a second create failed: \(error.message)")
        }
        for index in setting.frames {
            for (label, candidate) in [("the same instance", instance), ("a second instance", second)] {
                guard case .success(let again) = draw(candidate, index) else {
                    return PluginFinding(.failure, "determinism", "frame \(index) failed on its second render")
                }
                if !again.same(as: serial[index]) {
                    return PluginFinding(
                        .failure, "determinism",
                        "frame \(index) drawn again by \(label) has different bytes: \(Self.determinismAdvice)")
                }
            }
        }
        return PluginFinding(
            .pass, "determinism", "every frame byte-identical when drawn again, by the same and by a second instance")
    }

    func threadFinding(_ instance: PluginInstance, _ defaults: JSONObject, _ serial: [Int: Frame])
        -> PluginFinding
    {
        let frames = setting.frames
        let threads = setting.threads
        var instances: [PluginInstance] = []
        switch plugin.info.threadSafety {
        case .full:
            instances = Array(repeating: instance, count: threads)
        case .instance:
            for _ in 0..<threads {
                do {
                    instances.append(try makeInstance(defaults))
                } catch {
                    return PluginFinding(.failure, "threads", "create for a second thread failed: \(error.message)")
                }
            }
        case .unsafe:
            return PluginFinding(.note, "threads", "declares unsafe: the host renders it serially; not checked")
        }
        let mismatches = Locked<[String]>([])
        let shared = instances
        DispatchQueue.concurrentPerform(iterations: threads * frames.count) { iteration in
            let thread = iteration % threads
            let index = frames[(iteration / threads + thread) % frames.count]
            let problem: String? =
                switch draw(shared[thread], index) {
                case .success(let frame): frame.same(as: serial[index]) ? nil : "frame \(index) differs"
                case .failure(let error): "frame \(index): \(error.message)"
                }
            if let problem { mismatches.withLock { $0.append(problem) } }
        }
        let problems = mismatches.withLock { $0 }
        let how = plugin.info.threadSafety == .full ? "one instance" : "one instance per thread"
        guard problems.isEmpty else {
            return PluginFinding(
                .failure, "threads",
                "rendering on \(threads) threads (\(how)) changed frames: \(problems.prefix(3).joined(separator: "; "))"
            )
        }
        return PluginFinding(
            .pass, "threads", "\(threads * frames.count) renders on \(threads) threads (\(how)) equal the serial ones")
    }
}
