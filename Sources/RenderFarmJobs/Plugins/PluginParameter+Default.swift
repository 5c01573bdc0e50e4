extension PluginParameter {
    /// What is wrong with the default under the parameter's own type and range (the rule the host
    /// applies to a job's value); nil when it fits or there is none.
    package var defaultProblem: String? {
        guard let value = defaultValue, let problem = problem(with: value) else { return nil }
        return "default \(value.serialized()): \(problem)"
    }
}
