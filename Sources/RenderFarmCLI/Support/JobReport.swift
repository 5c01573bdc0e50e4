import RenderFarm
import RenderFarmJobs

/// Prints what loading and preparing several job files found, file by file in the order given: each
/// file's problems and warnings under its name (`jobs/bad.json: layers[0].params.rate: …`), its valid
/// jobs as valid, and a count at the end.
struct JobReport {
    /// The job files in the order given.
    let files: [String]
    /// Every problem, of loading or of preparing, each naming its file.
    let errors: [JobError]
    /// The jobs that are ready.
    let prepared: [PlannedJob]
    let terminal: Terminal

    /// Prints the report; the prepared jobs when every job is valid, else the exit code.
    func print(describeValid: ((PlannedJob) -> String)?) -> Result<[PlannedJob], ExitCode> {
        let shownFiles = files.map(ShownPath.of)
        var reported = Set<Int>()
        for file in shownFiles + [nil] {
            // Errors of each file in its turn; then any whose file was not given (none expected).
            for (index, error) in errors.enumerated() where !reported.contains(index) {
                let shown = ShownPath.of(error.file)
                guard file == shown || (file == nil && !shownFiles.contains(shown)) else { continue }
                reported.insert(index)
                report(error)
            }
            for job in prepared where ShownPath.of(job.job.file) == file {
                if let describeValid {
                    terminal.print(describeValid(job))
                } else if !errors.isEmpty {
                    terminal.note("renderfarm: \(ShownPath.of(job.job.file))\(Self.variant(job)): ok")
                }
                for warning in job.warnings { note(warning, file: job.job.file) }
            }
        }
        guard errors.isEmpty else {
            if files.count > 1 {
                let failed = Set(errors.map { ShownPath.of($0.file) }).count
                let problems = errors.map(\.errorCount).reduce(0, +)
                let of = "of \(files.count) job files"
                terminal.error(
                    "\(Plural.count(failed, "\(of) has", "\(of) have")) problems "
                        + "(\(Plural.count(problems, "problem"))); \(files.count - failed) valid")
            }
            return .failure(ExitCode.worst(errors))
        }
        return .success(prepared)
    }

    /// ` [variant alice@2x]` for a variant of a job file with variants, else nothing.
    static func variant(_ job: PlannedJob) -> String {
        job.job.variant.map { " [variant \($0.name)]" } ?? ""
    }

    private func report(_ error: JobError) {
        guard case .invalid(let file, let issues) = error else {
            terminal.error(error.description)
            return
        }
        for issue in issues {
            if issue.severity == .warning {
                note(issue, file: file)
            } else {
                terminal.error("\(ShownPath.of(file)): \(issue)")
            }
        }
    }

    private func note(_ warning: JobIssue, file: String) {
        let place = warning.path.isEmpty ? "" : "\(warning.path): "
        terminal.note("renderfarm: warning: \(ShownPath.of(file)): \(place)\(warning.message)")
    }
}

/// Counts with the right noun: `1 frame`, `2 frames`.
enum Plural {
    /// `count` and `singular`, or `plural` (default: `singular` + "s") when `count` is not 1.
    static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }
}
