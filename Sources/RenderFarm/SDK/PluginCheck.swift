import Foundation
import RenderFarmJobs
import StrictJSON

/// One result of `renderfarm plugin check`: what was checked and what was found.
package struct PluginFinding: Sendable, Equatable, CustomStringConvertible {
    package enum Level: String, Sendable {
        /// The rule holds.
        case pass = "ok"
        /// A measurement or a check that did not apply.
        case note = "note"
        /// Allowed, but an author should look at it.
        case warning = "warning"
        /// The plugin breaks a rule of renderfarm_plugin.h: the check exits 1.
        case failure = "FAIL"
    }

    package var level: Level
    /// The rule, e.g. `descriptor.id`, `threads`, `determinism`.
    package var check: String
    package var message: String

    package init(_ level: Level, _ check: String, _ message: String) {
        self.level = level
        self.check = check
        self.message = message
    }

    package var description: String {
        "\(level.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(check): \(message)"
    }
}

/// The conformance check a plugin author runs before shipping, in the spirit of the OpenFX and
/// frei0r host checks: the descriptor and parameter table, create/destroy at defaults and at every
/// range end, frames at several times on several threads, determinism, trace against pixels,
/// silence on stdout, and the time per frame.
package struct PluginCheck: Sendable {
    /// The job-like setting the plugin is exercised in.
    package struct Setting: Sendable {
        package var width = 375.0
        package var height = 667.0
        package var scale = 1.0
        package var fps = 30.0
        package var duration = 4.0
        package var seed: UInt64 = 2024
        /// Parameters set like a job layer's `params`, for plugins whose defaults alone do not
        /// make an instance (the defaults fill the rest).
        package var params = JSONObject()
        /// Threads rendering at once in the thread-safety check.
        package var threads = 4
        /// Above this many milliseconds per frame the check warns.
        package var slowFrameMilliseconds = 1000.0
        /// Frames drawn once each besides `frames` (`--frames all|SET`), in order: a crash, abort, hang or
        /// error on any of them fails the check naming the frame.
        package var extraFrames: [Int] = []
        /// Renders of the memory check after its warm-up (`--memory-frames`; 0 skips it).
        package var memoryFrames = PluginCheck.memoryRenders
        /// Told before each frame of the check's serial loops, so that a crash or hang there names the frame
        /// (the sandboxed worker's channel, or a watchdog in the check's own process); nil: nobody listens.
        package var progress: FrameProgress?

        package init() {}

        package var frameCount: Int { Int((duration * fps).rounded()) }
        /// The frames the pixel checks compare: start, quarters and the last one.
        var frames: [Int] {
            let last = frameCount - 1
            return Array(Set([0, last / 4, last / 2, 3 * last / 4, last])).sorted()
        }
        /// Every frame rendered once in the render check: `frames` and `extraFrames`, in order.
        var checkedFrames: [Int] { Array(Set(frames + extraFrames.filter { (0..<frameCount).contains($0) })).sorted() }
    }

    package let plugin: LoadedPlugin
    package let setting: Setting

    package init(_ plugin: LoadedPlugin, setting: Setting = Setting()) {
        self.plugin = plugin
        self.setting = setting
        // Opened before a sandboxed worker locks itself in, which hides /proc (the memory check reads it).
        ResidentMemory.open()
    }

    /// Runs every check and returns the findings in order. Plugin calls run with stdout
    /// redirected, so a plugin that prints is caught and the caller's output stays clean.
    package func run() -> [PluginFinding] { descriptorFindings() + callFindings() }

    /// The findings of every check that calls the plugin, and whether it printed meanwhile.
    func callFindings() -> [PluginFinding] {
        var findings: [PluginFinding] = []
        let capture = StdoutCapture.run { exercise() }
        findings += capture.result
        switch capture.output {
        case .some(let text) where !text.isEmpty:
            let shown = text.prefix(120).replacingOccurrences(of: "\n", with: "\\n")
            findings.append(
                PluginFinding(.failure, "stdout", "the plugin wrote \(text.utf8.count) bytes to stdout: \"\(shown)\""))
        case .some:
            findings.append(PluginFinding(.pass, "stdout", "nothing written to stdout"))
        case .none:
            findings.append(PluginFinding(.note, "stdout", "could not redirect stdout; not checked"))
        }
        return findings
    }

    /// Whether `findings` let the plugin ship (no failure).
    package static func passed(_ findings: [PluginFinding]) -> Bool { !findings.contains { $0.level == .failure } }
}
