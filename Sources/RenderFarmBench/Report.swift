import Foundation

/// Formats the bench's results as one table plus the memory, startup and acceptance lines.
struct Report {
    var rows: [Bench.Row]
    var memory: (short: (frames: Int, kib: Int), long: (frames: Int, kib: Int), concurrency: Int)?
    var startup: Bench.Startup?
    var isolation: Bench.Isolation?
    var encoders: [(label: String, results: [EncoderBench.Result])] = []
    var header: String

    /// Median over rounds of RenderFarm's fps divided by `variant`'s fps in the same round.
    static func ratio(_ row: Bench.Row, to variant: Variant) -> Double? {
        guard let mine = row.results[.renderfarm], let theirs = row.results[variant], !theirs.isEmpty else {
            return nil
        }
        return median(zip(mine, theirs).map { $0.fps / max($1.fps, 1e-9) })
    }

    var text: String {
        var lines = [header, ""]
        let columns = [
            "job", "-j", "fps", "draw", "conv", "enc", "write", "ms/frame", "KB/frame", "peak RSS",
            "x floor", "x same-enc", "x naive",
        ]
        let widths = [28, 3, 7, 6, 6, 6, 6, 9, 9, 10, 8, 11, 8]
        lines.append(Self.line(columns, widths))
        lines.append(String(repeating: "-", count: widths.reduce(0, +) + widths.count - 1))
        for row in rows {
            guard row.concurrency > 0, let runs = row.results[.renderfarm] else {
                lines.append(Self.line([row.label, "-", "skipped"], widths))
                continue
            }
            let steps = runs.compactMap(\.steps)
            func step(_ key: KeyPath<FrameSteps, Double>) -> Double { median(steps.map { $0[keyPath: key] }) }
            let total = step(\.draw) + step(\.convert) + step(\.encode) + step(\.write)
            let cells = [
                row.label, String(row.concurrency), Self.format(median(runs.map(\.fps)), 1),
                Self.format(step(\.draw), 2), Self.format(step(\.convert), 2), Self.format(step(\.encode), 2),
                Self.format(step(\.write), 2), Self.format(total, 2),
                Self.format(median(runs.map(\.bytesPerFrame)) / 1024, 1),
                Self.format(median(runs.map { Double($0.peakKiB) }) / 1024, 1) + " MB",
                Self.ratio(row, to: .floorLibpng).map { Self.format($0, 2) } ?? "-",
                Self.ratio(row, to: .floorEngine).map { Self.format($0, 2) } ?? "-",
                Self.ratio(row, to: .naive).map { Self.format($0, 2) } ?? "-",
            ]
            lines.append(Self.line(cells, widths))
        }
        lines.append("")
        lines.append("baselines, same frames (median fps, KB/frame, peak RSS):")
        for row in rows where row.concurrency > 0 && row.results[.floorLibpng] != nil {
            let parts = [Variant.floorLibpng, .floorEngine, .naive].map { variant -> String in
                let runs = row.results[variant] ?? []
                return "\(variant.rawValue) \(Self.format(median(runs.map(\.fps)), 1)) fps "
                    + "\(Self.format(median(runs.map(\.bytesPerFrame)) / 1024, 1)) KB "
                    + "\(Self.format(median(runs.map { Double($0.peakKiB) }) / 1024, 1)) MB"
            }
            lines.append("  \(row.label), -j \(row.concurrency): " + parts.joined(separator: " | "))
        }
        if let memory {
            let growth = Double(memory.long.kib - memory.short.kib) / Double(max(1, memory.short.kib)) * 100
            lines.append("")
            let short = Self.format(Double(memory.short.kib) / 1024, 1)
            let long = Self.format(Double(memory.long.kib) / 1024, 1)
            lines.append(
                "memory: peak RSS \(short) MB for \(memory.short.frames) frames, \(long) MB for "
                    + "\(memory.long.frames) frames (\(growth >= 0 ? "+" : "")\(Self.format(growth, 1)) %), "
                    + "\(rows.first?.label ?? ""), -j \(memory.concurrency)")
        }
        if let startup { lines.append(Self.line(startup)) }
        if let isolation {
            lines.append(
                "isolation: render --isolate (sandboxed) \(Self.format(isolation.isolated, 1)) fps vs in-process "
                    + "\(Self.format(isolation.inProcess, 1)) fps (\(Self.format(isolation.timeRatio, 2))x the time); "
                    + "--sandbox off \(Self.format(isolation.unsandboxed, 1)) fps; "
                    + "\(isolation.label), \(isolation.frames) frames, -j \(isolation.concurrency)")
        }
        for (label, results) in encoders {
            let parts = results.map {
                "\($0.encoder) \(Self.format($0.megapixelsPerSecond, 0)) MP/s \(Self.format($0.bytesPerFrame / 1024, 1)) KB"
            }
            lines.append("encoders alone, one thread, \(label): " + parts.joined(separator: " | "))
        }
        let notes = rows.compactMap { row in
            row.note.map { "  \(row.label)\(row.concurrency > 0 ? ", -j \(row.concurrency)" : ""): \($0)" }
        }
        if !notes.isEmpty { lines += ["", "notes:"] + notes }
        lines += ["", "acceptance:"] + acceptance
        lines.append(
            """

            fps: frames / wall time of the whole process (start-up, plugin loading and manifest included).
            draw/conv/enc/write: RenderFarm's ms per frame per worker (draw: cairo and plugins; conv: ARGB32
            to straight RGB(A); enc: deflate + PNG chunks; write: sha256 + file + rename). x floor: RenderFarm
            fps / C + libpng fps; x same-enc: / C with RenderFarm's encoder; x naive: / C with
            cairo_surface_write_to_png; ratios are medians of per-round ratios (programs run interleaved).
            C draws by hand-written cairo code, or, where the notes say "plugin ABI host", through the same
            plugin libraries as RenderFarm, loaded by a minimal C host (renderfarm_plugin.h).
            """)
        return lines.joined(separator: "\n")
    }

    private var acceptance: [String] {
        var checks: [String] = []
        let compared = rows.filter { $0.identity != nil }
        if !compared.isEmpty {
            let failed = compared.filter { $0.identityFailure != nil }
            checks.append(
                "  frames byte-identical to the C floor on every row (fails the bench): "
                    + (failed.isEmpty
                        ? "met"
                        : "NOT met (\(failed.map { "\($0.label), -j \($0.concurrency)" }.joined(separator: "; ")))"))
        }
        let measured = rows.filter { $0.concurrency > 0 && $0.results[.floorLibpng] != nil }
        let floors = measured.compactMap { row in Self.ratio(row, to: .floorLibpng).map { (row, $0) } }
        if let (row, worst) = floors.min(by: { $0.1 < $1.1 }) {
            checks.append(
                "  >= 0.9x the C floor on every row: \(worst >= 0.9 ? "met" : "NOT met") "
                    + "(lowest \(Self.format(worst, 2)), \(row.label), -j \(row.concurrency))")
        }
        // Issue 47: twice the C floor on the two 50-heart rows, and files no bigger than 1.25× libpng level 1's.
        for row in measured where row.label.contains("50 hearts") && !row.label.contains("500") {
            guard let ratio = Self.ratio(row, to: .floorLibpng) else { continue }
            checks.append(
                "  >= 2x the C floor, \(row.label), -j \(row.concurrency): "
                    + "\(ratio >= 2 ? "met" : "NOT met") (\(Self.format(ratio, 2)))")
        }
        let sizes = measured.compactMap { row -> (Bench.Row, Double)? in
            guard let mine = row.results[.renderfarm], let theirs = row.results[.floorLibpng] else { return nil }
            return (row, median(mine.map(\.bytesPerFrame)) / max(median(theirs.map(\.bytesPerFrame)), 1))
        }
        if let (row, largest) = sizes.max(by: { $0.1 < $1.1 }) {
            checks.append(
                "  PNG files within 1.25x libpng level 1's size on every row: \(largest <= 1.25 ? "met" : "NOT met") "
                    + "(largest \(Self.format(largest, 2))x, \(row.label))")
        }
        for row in measured {
            guard let target = row.naiveTarget, let ratio = Self.ratio(row, to: .naive) else { continue }
            checks.append(
                "  >= \(Self.format(target, 0))x naive, \(row.label), -j \(row.concurrency): "
                    + "\(ratio >= target ? "met" : "NOT met") (\(Self.format(ratio, 2)))")
        }
        if let memory {
            let growth = Double(memory.long.kib - memory.short.kib) / Double(max(1, memory.short.kib))
            checks.append(
                "  peak RSS within 10 % from \(memory.short.frames) to \(memory.long.frames) frames: "
                    + (growth <= 0.10 ? "met" : "NOT met"))
            checks.append(
                "  peak RSS under 150 MB at 1080p, -j \(memory.concurrency): "
                    + (Double(memory.long.kib) / 1024 < 150 ? "met" : "NOT met"))
        }
        if let startup {
            checks.append(Self.check(startup))
        }
        if let isolation {
            // Issue 47's goal for `--isolate`, as for every kind of layer in the layers bench.
            let goal = CompositionBench.goal
            checks.append(
                "  render --isolate within \(Self.format(goal, 1))x the time of in-process rendering: "
                    + "\(isolation.timeRatio <= goal ? "met" : "NOT met") (\(Self.format(isolation.timeRatio, 2))x)")
        }
        return checks
    }

    private static func line(_ cells: [String], _ widths: [Int]) -> String {
        zip(cells, widths).enumerated().map { index, pair in
            let (cell, width) = pair
            let padding = String(repeating: " ", count: max(0, width - cell.count))
            return index == 0 ? cell + padding : padding + cell
        }.joined(separator: " ")
    }

    /// The start-up lines: `validate`'s median time and peak RSS, and the whole job's render's peak RSS.
    static func line(_ startup: Bench.Startup) -> String {
        "startup: renderfarm validate jobs/live-hearts.json: \(format(startup.milliseconds, 1)) ms, peak RSS "
            + "\(format(Double(startup.peakKiB) / 1024, 1)) MB (medians of 11 and 3 runs)\n"
            + "memory: renderfarm render jobs/live-hearts.json -j 2 (480 frames): peak RSS "
            + "\(format(Double(startup.renderPeakKiB) / 1024, 1)) MB (median of 3 runs)"
    }

    /// Whether start-up and the 480-frame render meet their goals, as acceptance lines.
    static func check(_ startup: Bench.Startup) -> String {
        "  validate under 15 ms: " + (startup.milliseconds < 15 ? "met" : "NOT met") + "\n"
            + "  peak RSS of the 480-frame render at most 52 MB: "
            + (Double(startup.renderPeakKiB) / 1024 <= 52 ? "met" : "NOT met")
    }

    static func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
}

/// The type of the file system `path` is on (`tmpfs`, `ext4`, …), from the mount whose point is the longest prefix
/// of its real path in /proc/self/mounts: the table says where every program wrote its frames, since making files
/// costs more on some (Performance, "Where frames are written").
func fileSystem(of path: String) -> String {
    let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
    var best: (point: String, type: String)?
    for line in mounts.split(separator: "\n") {
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count > 2 else { continue }
        let point = fields[1]
        let inside = point == "/" || real == point || real.hasPrefix(point + "/")
        if inside && point.count > (best?.point.count ?? -1) { best = (point, fields[2]) }
    }
    return best?.type ?? "unknown file system"
}
