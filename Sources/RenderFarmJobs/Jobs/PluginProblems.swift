/// Turns what a plugin's `create` wrote (problems or warnings, one per line, "name: problem") into
/// issues at their place in the job file: `layers[1].params.spring.damping`.
package enum PluginProblems {
    package static func issues(
        _ message: String, layer: LayerSpec, severity: JobIssue.Severity = .error
    ) -> [JobIssue] {
        issues(PluginCallError.lines(message), layer: layer, severity: severity)
    }

    package static func issues(
        _ lines: [String], layer: LayerSpec, severity: JobIssue.Severity = .error
    ) -> [JobIssue] {
        lines.map { line in
            if let colon = line.range(of: ": "), isParameterName(line[..<colon.lowerBound]) {
                return JobIssue(
                    path: "\(layer.path).params.\(line[..<colon.lowerBound])",
                    String(line[colon.upperBound...]), severity: severity)
            }
            // A problem of the layer as a whole: warnings about the layer, errors as plugins always said them.
            return severity == .warning
                ? JobIssue(path: layer.path, line, severity: .warning)
                : JobIssue(path: "\(layer.path).params", "\(layer.effect): \(line)")
        }
    }

    /// The host's and the plugins' issues of a job together: the job's own first, then layer by layer
    /// (each layer's in the order they were found).
    package static func inFileOrder(_ issues: [JobIssue]) -> [JobIssue] {
        func layer(_ issue: JobIssue) -> Int {
            guard issue.path.hasPrefix("layers[") else { return -1 }
            return Int(issue.path.dropFirst("layers[".count).prefix { $0.isNumber }) ?? -1
        }
        return issues.enumerated().sorted { (layer($0.element), $0.offset) < (layer($1.element), $1.offset) }
            .map(\.element)
    }

    /// `spring.damping`, `items[2].shape`: a parameter, possibly nested; not a sentence.
    package static func isParameterName(_ text: Substring) -> Bool {
        guard let first = text.first, first.isLetter, text.count <= 200 else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-.[]".contains($0)) }
    }
}
