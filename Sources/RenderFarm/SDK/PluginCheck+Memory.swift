import Foundation
import Locking
import RenderFarmJobs

/// The memory check: the checked frames drawn a few hundred times by one instance while the resident set
/// size is sampled. A plugin that keeps what it allocates in `render` grows with every frame and, on a
/// stream-length job, ends a worker; the check fails it with "leaks about N KiB per frame".
extension PluginCheck {
    /// Renders measured after the warm-up (`--memory-frames`).
    package static let memoryRenders = 300
    /// Renders before the first sample: caches fill, allocators settle (at least one pass over the frames).
    static let memoryWarmUp = 30
    /// Growth after the warm-up that fails the check whatever its shape.
    static let leakBytes = 64 << 20
    /// Growth that fails the check when every one of the samples after the warm-up is higher than the one
    /// before: a steady leak, however small per frame.
    static let steadyLeakBytes = 4 << 20
    /// Samples after the warm-up.
    static let memorySamples = 10

    /// The memory finding, and what it measured for the time note (so the finding reads the same from run to
    /// run): the resident set after the warm-up and at the end.
    func memoryFinding(_ instance: PluginInstance) -> (PluginFinding, measured: String?) {
        let count = setting.memoryFrames
        guard count > 0 else { return (PluginFinding(.note, "memory", "not checked (--memory-frames 0)"), nil) }
        if WorkerSandbox.underSanitizer {
            return (
                PluginFinding(
                    .note, "memory",
                    "not checked under a sanitizer (its shadow memory and quarantine grow the resident set); "
                        + "LeakSanitizer reports leaks with their allocation sites when the check exits"), nil
            )
        }
        guard ResidentMemory.bytes() != nil else {
            return (PluginFinding(.note, "memory", "not checked: /proc/self/statm cannot be read"), nil)
        }
        let frames = setting.checkedFrames
        let warmUp = max(Self.memoryWarmUp, frames.count)
        let every = max(1, count / Self.memorySamples)
        var samples: [Int] = []
        let start = ContinuousClock.now
        defer { setting.progress?.end() }
        for render in 0..<(warmUp + count) {
            let index = frames[render % frames.count]
            setting.progress?.begin("memory", frame: index)
            if case .failure(let error) = draw(instance, index) {
                return (
                    PluginFinding(
                        .failure, "memory",
                        "frame \(index) failed when drawn again (render \(render + 1)): \(error.message)"), nil
                )
            }
            let done = render + 1 - warmUp
            if done == 0 || (done > 0 && (done % every == 0 || done == count)), let bytes = ResidentMemory.bytes() {
                samples.append(bytes)
            }
        }
        let seconds = (ContinuousClock.now - start).seconds
        let first = samples.first ?? 0
        let last = samples.last ?? 0
        let growth = last - first
        let measured = String(
            format: "%.1f MiB resident after %d warm-up renders, %.1f MiB after %d more (%.2f s)",
            Self.mebibytes(first), warmUp, Self.mebibytes(last), count, seconds)
        let steady = samples.count > 2 && zip(samples, samples.dropFirst()).allSatisfy { $0 < $1 }
        guard growth > Self.leakBytes || (steady && growth > Self.steadyLeakBytes) else {
            return (
                PluginFinding(
                    .pass, "memory",
                    "\(count) renders after \(warmUp) to warm up keep the resident set within "
                        + "\(Self.leakBytes >> 20) MiB, without steady growth"), measured
            )
        }
        let perFrame = growth / count / 1024
        return (
            PluginFinding(
                .failure, "memory",
                "leaks about \(perFrame) KiB per frame: the resident set grew from "
                    + "\(Self.format(Self.mebibytes(first))) to \(Self.format(Self.mebibytes(last))) MiB over \(count) renders after \(warmUp) to warm up"
                    + (steady ? ", at every sample" : "")
                    + ": free in render what render allocates (WritingAPlugin, \"Leaks\", shows LeakSanitizer "
                    + "naming the allocation site)"), measured
        )
    }

    static func mebibytes(_ bytes: Int) -> Double { Double(bytes) / Double(1 << 20) }
}

/// The process's resident set size from /proc/self/statm, read through a descriptor opened before a sandboxed
/// worker locks itself in (its sandbox refuses to open files under /proc afterwards).
enum ResidentMemory {
    /// The descriptor, opened once by `open()` and never closed (the process reads it until it ends).
    private static let descriptor = Locked<Int32>(-1)

    /// Opens /proc/self/statm unless it is open already.
    static func open() {
        descriptor.withLock { file in
            if file < 0 { file = Glibc.open("/proc/self/statm", O_RDONLY | O_CLOEXEC) }
        }
    }

    /// The resident set in bytes, or nil when /proc/self/statm cannot be read.
    static func bytes() -> Int? {
        descriptor.withLock { file -> Int? in
            guard file >= 0 else { return nil }
            var text = [UInt8](repeating: 0, count: 128)
            let count = text.withUnsafeMutableBytes { pread(file, $0.baseAddress, $0.count - 1, 0) }
            guard count > 0 else { return nil }
            // "size resident shared text lib data dt", in pages.
            let fields = String(decoding: text.prefix(count), as: UTF8.self).split(separator: " ")
            guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
    }
}
