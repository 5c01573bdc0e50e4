import RenderFarm
import RenderFarmJobs
import StrictJSON

/// What `renderfarm validate` says about a job text: the jobs it decodes to and every problem.
struct Validation: Sendable {
    var jobs: [LoadedJob]
    var errors: [JobError]
    /// A problem outside the job file (no plugins, the file could not be written).
    var failure: String?

    var valid: Bool { errors.isEmpty && failure == nil && !jobs.isEmpty }

    var missing: Bool {
        if case .missing = errors.first { return true }
        return false
    }

    /// The lines `validate` prints on standard error for these problems.
    var lines: [String] {
        let messages = errors.map(\.description) + (failure.map { [$0] } ?? [])
        return messages.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false) }.map {
            "renderfarm: error: \($0)"
        }
    }

    /// Each problem with its place in the file (`layers[0].params.rate`; empty for the whole file).
    var issues: [JSONValue] {
        var list: [JSONValue] = []
        for error in errors {
            switch error {
            case .invalid(_, let issues):
                list += issues.map { .object(["path": .string($0.path), "message": .string($0.message)]) }
            case .syntax(_, let message):
                list.append(.object(["path": .string(""), "message": .string(message)]))
            default:
                list.append(.object(["path": .string(""), "message": .string(error.description)]))
            }
        }
        if let failure { list.append(.object(["path": .string(""), "message": .string(failure)])) }
        return list
    }

    var json: JSONObject {
        ["valid": .bool(valid), "errors": .array(lines.map { .string($0) }), "issues": .array(issues)]
    }
}
