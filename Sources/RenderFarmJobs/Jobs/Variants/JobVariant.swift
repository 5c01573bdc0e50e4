import StrictJSON

/// One variant of a job with `variants`: which row and matrix values it was made from.
package struct JobVariant: Sendable, Equatable {
    /// The variant's name (`variants.name` filled in), unique in its batch; also its folder name.
    package var name: String
    /// Position in the batch, 0-based.
    package var index: Int
    /// Where its row is (`streamers.csv:7`), or `variants.matrix` for a matrix without rows.
    package var origin: String
    /// Every value it was made from: the row's columns and the matrix key paths.
    package var values: JSONObject
    /// The places of the job that placeholders or matrix keys filled, by path.
    package var filled: [String: Filled]
    /// Every variant of the same job file, for `variants.json`.
    package var batch: VariantBatch
    /// Problems found while filling the variant, told when it is planned.
    package var issues: [JobIssue] = []
    /// Places still holding an unknown placeholder: their other problems follow from it.
    package var unresolved: Set<String> = []

    /// What filled one place of the job.
    package struct Filled: Sendable, Equatable {
        /// The column or matrix key.
        package var column: String
        package var value: Template.Value
        /// Whether the placeholder was the whole value (`"{{size}}"`), not part of a text (`"Hi {{name}}"`).
        package var isWhole = true
    }

    /// Whether `variants.matrix` sets the key path `path` (`canvas.scale`) for this variant.
    package func matrixSets(_ path: String) -> Bool {
        filled[path].map { $0.column == path && $0.value.origin == "variants.matrix" } ?? false
    }

    /// The variant's JSON description, as the manifest and `variants.json` record it.
    package var json: JSONValue {
        .object([
            "name": .string(name), "index": .number(Double(index)), "origin": .string(origin),
            "values": .object(values),
        ])
    }

    /// `issues` told at the data they came from; those at a place left with an unknown
    /// placeholder are dropped (the placeholder is reported).
    package func located(_ issues: [JobIssue]) -> [JobIssue] {
        issues.filter { !unresolved.contains($0.path) }.map(locate)
    }

    /// `issue` told at the data it came from when the value at its place came from a row:
    /// `streamers.csv:7: column "color": … (layers[0].params.colors[0])`.
    package func locate(_ issue: JobIssue) -> JobIssue {
        let match = filled.first { path, _ in
            issue.path == path || issue.path.hasPrefix(path + ".") || issue.path.hasPrefix(path + "[")
                || (!issue.path.isEmpty && (path.hasPrefix(issue.path + ".") || path.hasPrefix(issue.path + "[")))
        }
        guard let (path, filled) = match else {
            return JobIssue(path: issue.path, issue.message + " (variant \(name))")
        }
        return JobIssue(
            path: "",
            "\(filled.value.origin): column \"\(filled.column)\": \(issue.message) (\(issue.path.isEmpty ? path : issue.path))"
        )
    }

    /// `params` of the layer at `layer` (`layers[2]`) with each place a CSV cell filled typed as `parameters` declare
    /// it: text for strings, enums and colours, a number, a bool, or JSON for points and lists.
    package func typed(_ params: JSONObject, layer: String, parameters: [PluginParameter]) -> JSONObject {
        var params = params
        let prefix = "\(layer).params."
        for (path, filled) in filled where path.hasPrefix(prefix) && filled.isWhole {
            guard let text = filled.value.text else { continue }
            let name = String(path.dropFirst(prefix.count))
            guard let parameter = parameters.first(where: { $0.name == name }) else { continue }
            params[name] = Template.typed(text, as: parameter.kind)
        }
        return params
    }
}

/// All variants of one job file.
package struct VariantBatch: Sendable, Equatable {
    /// The job file.
    package var file: String
    /// The job's name, shared by its variants (`<name>/<variant>` are their names).
    package var name: String
    /// Each variant's name, values, name in messages and frame count.
    package var variants: [Summary]

    package struct Summary: Sendable, Equatable {
        package var variant: String
        package var values: JSONObject
        package var origin: String
        /// The variant job's name (its default output folder is `out/<jobName>`).
        package var jobName: String
        /// Its `output.dir` as the job says (relative to the job's folder).
        package var outputDirectory: String
        package var frameCount: Int
    }
}
