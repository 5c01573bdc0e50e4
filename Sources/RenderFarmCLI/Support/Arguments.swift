import RenderFarm
import StrictJSON

/// How one option a command accepts is spelt and shown, e.g. `-j, --jobs N`. Commands declare each
/// option once as a typed key (`Flag` or `Option`): the same key goes into the command's spec (parser,
/// help, completions, man page) and into every lookup, so a misspelt option name cannot compile.
struct OptionSpec: Sendable {
    var names: [String]
    /// The value's placeholder (`N`, `DIR`), or nil for a flag.
    var value: String?
    var help: String
    /// Whether the option may be given more than once.
    var repeatable = false
    /// Whether the command needs it (shown without brackets in the usage line).
    var required = false

    var primaryName: String { names.last ?? "" }

    /// How a command line renderfarm writes gives the option (`CommandLineWords`): the spelling the
    /// usage line shows, e.g. `-j`.
    var commandLineName: String { names.first ?? "" }

    /// Whether the value names a file or folder (`DIR`, `FILE`, `SHEET.png`): an empty one names none.
    var namesPath: Bool {
        guard let value else { return false }
        return value == "DIR" || value.hasSuffix("FILE") || value.hasSuffix(".png")
    }

    /// How the usage line shows it: `[-j N]`, `-o SHEET.png`, `[--plugin-path DIR …]`.
    var usage: String {
        let text = (names.first ?? "") + (value.map { " \($0)" } ?? "") + (repeatable ? " …" : "")
        return required ? text : "[\(text)]"
    }
}

/// A typed option key: a `Flag` or an `Option`, listed in a `CommandSpec` and looked up in `ParsedArguments`.
protocol OptionKey: Sendable {
    var spec: OptionSpec { get }
}

/// An option without a value, e.g. `static let force = Flag("--force", help: "…")`; `arguments[Self.force]`
/// says whether it was given.
struct Flag: OptionKey {
    let spec: OptionSpec

    init(_ names: String..., help: String, required: Bool = false) {
        spec = OptionSpec(names: names, value: nil, help: help, required: required)
    }
}

/// An option with a value, e.g. `static let jobs = Option("-j", "--jobs", value: "N", help: "…")`;
/// `arguments[Self.jobs]` is its value, `arguments.integer(Self.jobs, …)` its checked number.
struct Option: OptionKey {
    let spec: OptionSpec

    init(_ names: String..., value: String, help: String, repeatable: Bool = false, required: Bool = false) {
        spec = OptionSpec(names: names, value: value, help: help, repeatable: repeatable, required: required)
    }

    /// The option and `value` as two words of a command line renderfarm writes for another process to
    /// run (the `render --isolate` workers, a plugin project's Makefile; Slurm scripts: `CommandLineWords`).
    func words(_ value: String) -> [String] { [spec.commandLineName, value] }
}

/// A command's metadata: everything `--help` shows, and what the parser accepts.
struct CommandSpec: Sendable {
    var name: String
    var abstract: String
    /// The command and its positional arguments, e.g. `render JOB|DIR …`; `usage` adds every option.
    var synopsis: String
    /// One to three command lines that show typical uses.
    var examples: [String]
    var discussion: String
    var options: [OptionSpec]
    /// How many positional arguments: at least `minimum`, at most `maximum`.
    var positionals: ClosedRange<Int>

    init(
        name: String, abstract: String, synopsis: String, examples: [String], discussion: String = "",
        options: [any OptionKey], positionals: ClosedRange<Int>
    ) {
        self.name = name
        self.abstract = abstract
        self.synopsis = synopsis
        self.examples = examples
        self.discussion = discussion
        self.options = options.map(\.spec)
        self.positionals = positionals
    }

    /// `-h, --help`, which every command accepts.
    static let helpFlag = Flag("-h", "--help", help: "Show this help.")

    /// Every option the help, completions and man page list: the command's own and `--help`.
    var documentedOptions: [OptionSpec] { options + [Self.helpFlag.spec] }

    /// The synopsis and every option, from the same table the parser uses, so it cannot leave one out.
    var usage: String { ([synopsis] + options.map(\.usage)).joined(separator: " ") }

    /// `usage` broken into lines of at most `width` columns, continuation lines indented.
    func wrappedUsage(width: Int = 100) -> [String] {
        var lines: [String] = []
        var line = "USAGE: renderfarm \(synopsis)"
        for part in options.map(\.usage) {
            if line.count + 1 + part.count > width {
                lines.append(line)
                line = String(repeating: " ", count: 18) + part
            } else {
                line += " " + part
            }
        }
        return lines + [line]
    }

    var help: String {
        var lines = ["OVERVIEW: \(abstract)", ""] + wrappedUsage()
        if !discussion.isEmpty { lines += ["", discussion] }
        lines += ["", "OPTIONS:"]
        let all = documentedOptions
        let labels = all.map { option in option.names.joined(separator: ", ") + (option.value.map { " \($0)" } ?? "") }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (label, option) in zip(labels, all) {
            lines.append("  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + option.help)
        }
        if !examples.isEmpty { lines += ["", "EXAMPLES:"] + examples.map { "  " + $0 } }
        return lines.joined(separator: "\n")
    }
}

/// A command line that did not parse; the message says what to do instead.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var command: String
    var description: String { "\(message)\nsee `renderfarm \(command) --help`" }
}

/// Parsed options and positional arguments of one command.
struct ParsedArguments {
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    var positionals: [String] = []
    var wantsHelp = false
    let spec: CommandSpec
    /// The environment variables the command reads (`RENDERFARM_FFMPEG`, `PATH`, `SLURM_ARRAY_TASK_ID`, …), as
    /// `RenderFarmCLI.run` was given them: the process's, or those a caller running the command in process gives.
    let environment: [String: String]

    /// Parses `arguments` (after the command name) against `spec`, for a command that sees `environment`.
    init(_ arguments: [String], spec: CommandSpec, environment: [String: String]) throws(UsageError) {
        self.spec = spec
        self.environment = environment
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                wantsHelp = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.options.first(where: { $0.names.contains(name) }) else {
                let known = spec.options.flatMap(\.names) + ["--help"]
                let hint = Suggestion.closest(to: name, in: known).map { " (did you mean \($0)?)" } ?? ""
                throw UsageError(message: "unknown option \(name)\(hint)", command: spec.name)
            }
            let key = option.primaryName
            guard option.value != nil else {
                if inlineValue != nil { throw UsageError(message: "\(name) takes no value", command: spec.name) }
                flags.insert(key)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError(message: "\(name) needs a value (\(option.value ?? "VALUE"))", command: spec.name)
            }
            if value.isEmpty, option.namesPath {
                throw UsageError(
                    message: "\(name) \"\" names no \(option.value == "DIR" ? "folder" : "file"): give a path "
                        + "(\(option.value ?? "")), or leave the option out",
                    command: spec.name)
            }
            if !option.repeatable, values[key] != nil {
                throw UsageError(message: "\(name) given more than once", command: spec.name)
            }
            values[key, default: []].append(value)
        }
        guard wantsHelp || spec.positionals.contains(positionals.count) else {
            let expected =
                spec.positionals.lowerBound == spec.positionals.upperBound
                ? "\(spec.positionals.lowerBound)" : "at least \(spec.positionals.lowerBound)"
            let message =
                positionals.count < spec.positionals.lowerBound
                ? "missing argument (expected \(expected)); usage: renderfarm \(spec.usage)"
                : "unexpected argument \"\(positionals[spec.positionals.upperBound])\"; usage: renderfarm \(spec.usage)"
            throw UsageError(message: message, command: spec.name)
        }
    }

    /// Whether `flag` was given.
    subscript(_ flag: Flag) -> Bool { flags.contains(key(flag)) }

    /// The value of `option`, the last one given for a repeatable option.
    subscript(_ option: Option) -> String? { values[key(option)]?.last }

    /// Whether `option` (a flag or an option with a value) was given.
    func has(_ option: any OptionKey) -> Bool {
        let name = option.spec.primaryName
        return flags.contains(name) || values[name] != nil
    }

    /// Every value given for a repeatable `option`, in order.
    func all(_ option: Option) -> [String] { values[key(option)] ?? [] }

    /// How messages name an option: every spelling, e.g. `-j/--jobs`.
    func label(_ option: Option) -> String { option.spec.names.joined(separator: "/") }

    /// The name values are kept under. A key the command does not list is never given (`CommonOptions`
    /// asks for `--variants` whatever the command).
    private func key(_ option: some OptionKey) -> String { option.spec.primaryName }

    /// An integer option within `range`.
    func integer(_ option: Option, in range: ClosedRange<Int>, command: String) throws(UsageError) -> Int? {
        guard let text = self[option] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                message:
                    "\(label(option)) expects an integer in \(range.lowerBound)…\(range.upperBound), got \"\(text)\"",
                command: command)
        }
        return number
    }

    /// A number option within `range`.
    func number(_ option: Option, in range: ClosedRange<Double>, command: String) throws(UsageError) -> Double? {
        guard let text = self[option] else { return nil }
        guard let number = Double(text), range.contains(number) else {
            throw UsageError(
                message:
                    "\(label(option)) expects a number in \(format(range.lowerBound))…\(format(range.upperBound)), "
                    + "got \"\(text)\"",
                command: command)
        }
        return number
    }

    /// One of `choices`.
    func choice(_ option: Option, _ choices: [String], default fallback: String, command: String) throws(UsageError)
        -> String
    {
        guard let text = self[option] else { return fallback }
        guard choices.contains(text) else {
            throw UsageError(
                message: "\(label(option)) expects one of \(choices.joined(separator: ", ")), got \"\(text)\"",
                command: command)
        }
        return text
    }
}
