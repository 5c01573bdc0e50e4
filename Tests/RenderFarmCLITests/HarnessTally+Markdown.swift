import Foundation

/// The findings of a run as Markdown (RENDERFARM_INCREMENTAL_REPORT=FILE): per edit kind, what was
/// edited, how often it failed and how, and an example that replays it.
extension HarnessTally {
    func markdown(seconds: Double, configuration: HarnessConfiguration) -> String {
        state.withLock { state in
            let edits = state.entries.values.reduce(0) { $0 + $1.edits }
            let first = configuration.seeds.first ?? 0
            var lines = [
                "# Incremental harness findings", "",
                "\(edits) edits in \(state.sequences) sequences (seeds \(first)…"
                    + "\(configuration.seeds.last ?? first), \(configuration.edits) edits each), "
                    + "\(state.failures.count) failing edits, \(String(format: "%.0f", seconds)) s on "
                    + "\(configuration.workers) workers.",
                "",
                "Replay any example with `RENDERFARM_INCREMENTAL_SEED=<seed> RENDERFARM_INCREMENTAL_EDITS=<edit> "
                    + "make fuzz-incremental`.",
            ]
            var byKind: [HarnessEditKind: [(label: String, entry: HarnessEntry)]] = [:]
            for key in state.entries.keys.sorted() {
                let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
                guard let kind = HarnessEditKind(rawValue: parts[0]), let entry = state.entries[key] else { continue }
                byKind[kind, default: []].append((parts.count > 1 ? parts[1] : "", entry))
            }
            for kind in byKind.keys.sorted() {
                let entries = byKind[kind] ?? []
                lines += [
                    "", "## \(kind.rawValue)", "",
                    "| edited | edits | failing | how | stale frames | over-drawn | example |",
                    "|---|---|---|---|---|---|---|",
                ]
                for (label, entry) in entries.sorted(by: {
                    ($0.entry.first == nil ? 1 : 0, $0.label) < ($1.entry.first == nil ? 1 : 0, $1.label)
                }) {
                    let failing = state.failures.filter { $0.kind == kind && $0.label == label }.count
                    let how = entry.failures.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }
                        .joined(separator: ", ")
                    let example = entry.first.map { "seed \($0.seed) edit \($0.edit): \($0.description)" } ?? ""
                    lines.append(
                        "| \(label) | \(entry.edits) | \(failing) | \(how) | \(entry.staleFrames) | "
                            + "\(entry.overdrawn) of \(entry.redrawn) | \(Self.cell(example)) |")
                }
                let failures = state.failures.filter { $0.kind == kind }
                guard !failures.isEmpty else { continue }
                lines += ["", "Examples (at most three per label):", ""]
                var shown: [String: Int] = [:]
                for failure in failures.sorted(by: { ($0.label, $0.seed, $0.edit) < ($1.label, $1.seed, $1.edit) }) {
                    shown[failure.label, default: 0] += 1
                    if shown[failure.label, default: 0] <= 3 { lines.append("- " + Self.cell(failure.line)) }
                }
            }
            if !state.errors.isEmpty {
                lines += ["", "## Harness errors", ""] + state.errors.map { "- " + $0 }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Text for a Markdown table cell or list item.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
