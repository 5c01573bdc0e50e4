import RenderFarm

/// Prints what preparing several jobs found, in file order: each job's problems and warnings under its
/// file name (`jobs/bad.json: layers[0].params.rate: …`), the valid jobs as valid, and a count at the end.
struct JobReport {
    let results: [Result<PreparedJob, JobError>]
    let terminal: Terminal

    /// Prints the report; the prepared jobs when every job is valid, else the exit code.
    func print(describeValid: ((PreparedJob) -> String)?) -> Result<[PreparedJob], ExitCode> {
        var prepared: [PreparedJob] = []
        var failures: [JobError] = []
        for result in results {
            switch result {
            case .success(let job):
                prepared.append(job)
                if let describeValid {
                    terminal.print(describeValid(job))
                } else if results.count > 1, results.contains(where: { (try? $0.get()) == nil }) {
                    terminal.note("renderfarm: \(ShownPath.of(job.job.file)): ok")
                }
                for warning in job.warnings { note(warning, file: job.job.file) }
            case .failure(let error):
                failures.append(error)
                guard case .invalid(let file, let issues) = error else {
                    terminal.error(error.description)
                    continue
                }
                for issue in issues {
                    if issue.severity == .warning {
                        note(issue, file: file)
                    } else {
                        terminal.error("\(ShownPath.of(file)): \(issue)")
                    }
                }
            }
        }
        guard failures.isEmpty else {
            if results.count > 1 {
                let problems = failures.map(\.errorCount).reduce(0, +)
                let files = "of \(results.count) job files"
                terminal.error(
                    "\(Plural.count(failures.count, "\(files) has", "\(files) have")) problems "
                        + "(\(Plural.count(problems, "problem"))); \(prepared.count) valid")
            }
            return .failure(failures.contains { ExitCode($0) == .noInput } ? .noInput : .dataError)
        }
        return .success(prepared)
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
