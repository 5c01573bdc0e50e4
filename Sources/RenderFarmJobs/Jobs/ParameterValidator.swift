import CairoKit
import StrictJSON

/// Checks a layer's `params` against the plugin's table before `create`, so every plugin
/// reports bad input in the same words, and fills in the defaults.
package enum ParameterValidator {
    package static func validate(_ params: JSONObject, against info: PluginInfo, path: String) -> (
        JSONObject, [JobIssue]
    ) {
        var issues: [JobIssue] = []
        let names = info.parameters.map(\.name)
        for key in params.keys where info.parameter(named: key) == nil {
            // A layer's own field (the clip's `gain` and `muted` were parameters of `video` once) goes beside "effect".
            let hint =
                LayerListDecoder.fieldKeys.contains(key)
                ? "; \"\(key)\" is a field of the layer: write it beside \"effect\", not in \"params\""
                : Suggestion.hint(for: key, in: names) + "; see `renderfarm plugins \(info.id)`"
            issues.append(JobIssue(path: keyPath(path, key), "\"\(info.id)\" has no parameter \"\(key)\"" + hint))
        }
        var filled = JSONObject()
        for parameter in info.parameters {
            guard var value = params[parameter.name] ?? parameter.defaultValue else { continue }
            if params[parameter.name] != nil, let problem = parameter.problem(with: value) {
                issues.append(JobIssue(path: "\(path).\(parameter.name)", problem))
                // The plugin still checks the rest of the layer in the same pass, on the default.
                guard let fallback = parameter.defaultValue else { continue }
                value = fallback
            }
            filled[parameter.name] = value
        }
        return (filled, issues)
    }
}
