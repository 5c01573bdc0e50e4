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

    /// What is expected, for messages.
    var description: String {
        switch self {
        case .nothing: "no frame redrawn"
        case .job(let path): "because the job changed (\(path))"
        case .input(let file): "because an input file changed (\(file))"
        case .jobOrInput(let path, let file): "because the job changed (\(path)) or its input \(file) changed"
        case .plugin(let id): "because a plugin changed (\(id))"
        }
    }
}

enum HarnessRerunReason {
    /// THE reason check: nil when `summary` states `expected` for every frame it redraws because
    /// something changed, else what is wrong. A detail in parentheses, when the reason has one, must
    /// name what was edited (the job's path, the file, the plugin); today's reasons for a job carry
    /// none. `never rendered` is always accepted (an edit may add frames), `missing or corrupt` only
    /// after a killed run.
    static func problem(_ summary: HarnessRerunSummary, expected: HarnessExpectedReason, killed: Bool) -> String? {
        for part in summary.parts {
            if part.text == "never rendered" { continue }
            if part.text == "missing or corrupt", killed { continue }
            let detail = part.text.firstIndex(of: "(").map { String(part.text[$0...].dropFirst().dropLast()) }
            func names(_ what: String) -> Bool {
                guard let detail else { return true }
                return detail.contains(what) || what.contains(detail)
            }
            let fits: Bool
            switch expected {
            case .nothing: fits = false
            case .job(let path): fits = part.text.hasPrefix("because the job changed") && names(path)
            case .input(let file):
                fits = part.text.hasPrefix("because an input file changed") && detail?.contains(file) == true
            case .jobOrInput(let path, let file):
                fits =
                    part.text.hasPrefix("because the job changed") && names(path)
                    || part.text.hasPrefix("because an input file changed") && detail?.contains(file) == true
            case .plugin(let id): fits = part.text.hasPrefix("because a plugin changed") && detail?.contains(id) == true
            }
            if !fits { return "stated \"\(summary.line)\", expected \(expected.description)" }
        }
        return nil
    }
}
