import RenderFarm

/// A `renderfarm` command line that another process runs (a Slurm script's `render`, `prepare` or
/// `merge`): the command's name and every option spelt from the typed keys its parser reads, so a renamed
/// option is renamed in every command line renderfarm writes too.
struct CommandLineWords {
    private(set) var words: [ScriptWord]

    /// `command`'s name, then `positionals`.
    init(_ command: CommandSpec, _ positionals: [String]) {
        words = [.value(command.name)] + positionals.map(ScriptWord.value)
    }

    /// `option` with `value`; nothing when `value` is nil.
    mutating func add(_ option: Option, _ value: String?) {
        guard let value else { return }
        add(option, .value(value))
    }

    /// `option` with a word the script fills in when it runs (`.taskShard`, `.taskCPUs`).
    mutating func add(_ option: Option, _ word: ScriptWord) {
        words += [.value(option.spec.commandLineName), word]
    }

    /// `option` once for each of `values`, in order.
    mutating func add(_ option: Option, each values: [String]) {
        for value in values { add(option, value) }
    }

    /// A positional word (a job file, an output folder).
    mutating func add(_ word: ScriptWord) { words.append(word) }

    /// `flag` when `given`.
    mutating func add(_ flag: Flag, if given: Bool = true) {
        if given { words.append(.value(flag.spec.commandLineName)) }
    }
}
