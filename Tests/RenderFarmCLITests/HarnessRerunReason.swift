import Foundation

/// What a render says it draws and why: its first line on standard error with `--progress plain`,
/// `rendering 12 frames of 1 job: 8 because the job changed, 4 never rendered` (RerunReason).
struct HarnessRerunSummary: Sendable, Equatable {
    struct Part: Sendable, Equatable {
        var count: Int
        /// `because the job changed`, `because an input file changed (assets/a.png)`, `never rendered`…
        var text: String
    }

    var frames = 0
    var parts: [Part] = []
    var line = ""

    init(stderr: String) {
        guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("rendering ") }) else { return }
        self.line = String(line)
        frames = Int(line.dropFirst("rendering ".count).prefix { $0.isNumber }) ?? 0
        guard let colon = line.range(of: ": ") else { return }
        // Parts are separated by ", " outside parentheses (the lists of files and plugins inside them).
        var depth = 0
        var current = ""
        var texts: [String] = []
        for character in line[colon.upperBound...] {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if character == ",", depth == 0 {
                texts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        texts.append(current.trimmingCharacters(in: .whitespaces))
        parts = texts.compactMap { text in
            let count = text.prefix { $0.isNumber }
            guard let number = Int(count) else { return nil }
            return Part(count: number, text: text.dropFirst(count.count).trimmingCharacters(in: .whitespaces))
        }
    }

    /// Frames the summary says are redrawn because something changed.
    var changed: Int { parts.filter { $0.text.hasPrefix("because") }.reduce(0) { $0 + $1.count } }
}

/// The reason an edit should give for the frames it redraws.
enum HarnessExpectedReason: Sendable, Equatable {
    /// An edit that changes no frame (a no-op, the sound): nothing may be redrawn.
    case nothing
    /// The job file changed at `path` (`layers[1].params.fill`, `canvas.background`).
    case job(String)
    /// An input file changed: `file` relative to the job's folder.
    case input(String)
    /// The job, or the file it reads its variants from, changed.
    case jobOrInput(path: String, file: String)
    /// The plugin `id` changed (a rebuilt library).
    case plugin(String)
    /// `frames` changed: a frame the earlier runs left out may have been drawn from any older form of the
    /// job (before other edits), which the reason then names (renderfarm.job.json's `earlier`). Any cause fits.
    case anyEarlierChange

    /// What is expected, for messages.
    var description: String {
        switch self {
        case .nothing: "no frame redrawn"
        case .job(let path): "because the job changed (\(path))"
        case .input(let file): "because an input file changed (\(file))"
        case .jobOrInput(let path, let file): "because the job changed (\(path)) or its input \(file) changed"
        case .plugin(let id): "because a plugin changed (\(id))"
        case .anyEarlierChange: "because of an edit before the run that left the frame out"
        }
    }
}

enum HarnessRerunReason {
    /// THE reason check: nil when `summary` states `expected` for every frame it redraws because
    /// something changed, else what is wrong. A part may join causes with " and " (`because a plugin
    /// changed (…) and the job changed (…)`); a cause's detail in parentheses, when it has one, must name
    /// what was edited (the job's path, the file, the plugin). `never rendered` is always accepted (an edit
    /// may add frames), `missing or corrupt` only after a killed run.
    static func problem(_ summary: HarnessRerunSummary, expected: HarnessExpectedReason, killed: Bool) -> String? {
        for part in summary.parts {
            if part.text == "never rendered" { continue }
            if part.text == "missing or corrupt", killed { continue }
            guard part.text.hasPrefix("because "), expected != .nothing else {
                return "stated \"\(summary.line)\", expected \(expected.description)"
            }
            let causes = Self.causes(String(part.text.dropFirst("because ".count)))
            if !fits(causes, expected) { return "stated \"\(summary.line)\", expected \(expected.description)" }
        }
        return nil
    }

    /// A stated cause: `the job changed`, with what is in its parentheses (nil without them).
    struct Cause {
        var what: String
        var detail: String?

        /// Whether the detail names `edited`, or lists it: a canvas edit moves every anchor left at the canvas's
        /// centre, so it may read `canvas, layers[1], layers[2] and 1 more`.
        func names(_ edited: String) -> Bool {
            guard let detail else { return true }
            let listed = detail.components(separatedBy: ", ").map { $0.components(separatedBy: " and ")[0] }
            return ([detail] + listed).contains { $0.contains(edited) || edited.contains($0) }
        }
    }

    /// Whether the causes given fit the edit made.
    static func fits(_ causes: [Cause], _ expected: HarnessExpectedReason) -> Bool {
        let job = ["the job changed", "the variants file changed"]
        switch expected {
        case .nothing: return false
        case .job(let path):
            return causes.allSatisfy { job.contains($0.what) } && causes.contains { $0.names(path) }
        case .input(let file):
            return causes.contains { $0.what == "an input file changed" && $0.detail?.contains(file) == true }
        case .jobOrInput(_, let file):
            // The folder of a variant renamed back may hold a render of an older job: any job change fits.
            return causes.contains { cause in
                cause.what == "the variants file changed" || cause.what == "the job changed"
                    || cause.what == "an input file changed" && cause.detail?.contains(file) == true
            }
        case .plugin(let id):
            return causes.contains { $0.what == "a plugin changed" && $0.detail?.contains(id) == true }
        case .anyEarlierChange:
            return !causes.isEmpty
        }
    }

    /// `text` split at " and " outside parentheses, each with its detail.
    static func causes(_ text: String) -> [Cause] {
        var pieces: [String] = []
        var depth = 0
        var current = ""
        for character in text {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            current.append(character)
            if depth == 0, current.hasSuffix(" and ") {
                pieces.append(String(current.dropLast(" and ".count)))
                current = ""
            }
        }
        pieces.append(current)
        return pieces.map { piece in
            guard let open = piece.firstIndex(of: "(") else { return Cause(what: piece, detail: nil) }
            let what = piece[..<open].trimmingCharacters(in: .whitespaces)
            return Cause(what: what, detail: String(piece[open...].dropFirst().dropLast()))
        }
    }
}
