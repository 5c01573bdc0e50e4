import RenderFarm
import RenderFarmManual

/// The `renderfarm(1)` manual page in roff, generated from the commands' specs (the same text
/// `--help` shows), so the installed page cannot drift from the binary.
enum ManPage {
    static func render(commands: [CommandSpec], version: String) -> String {
        var lines = [
            ".TH RENDERFARM 1 \"\" \"renderfarm \(escape(version))\" \"User Commands\"",
            ".SH NAME",
            "renderfarm \\- render programmatic motion graphics into PNG frames",
            ".SH SYNOPSIS",
            ".B renderfarm",
            ".I COMMAND",
            "[\\fIOPTIONS\\fR]",
            ".SH DESCRIPTION",
            "RenderFarm renders job files (JSON) into numbered PNG frames with effect plugins, locally or",
            "as Slurm job arrays. Results go to standard output, progress and diagnostics to standard error.",
            ".SH COMMANDS",
        ]
        for spec in commands {
            lines.append(".SS \"\(escape(spec.name))\"")
            lines.append(escape(spec.abstract))
            lines.append(".PP")
            lines.append(".B renderfarm")
            lines.append(escape(spec.usage))
            if !spec.discussion.isEmpty {
                for paragraph in spec.discussion.components(separatedBy: "\n\n") {
                    lines.append(".PP")
                    lines += paragraph.split(separator: "\n").map {
                        escape(String($0).trimmingCharacters(in: .whitespaces))
                    }
                }
            }
            for option in spec.options {
                lines.append(".TP")
                let names = option.names.map { "\\fB\(escape($0))\\fR" }.joined(separator: ", ")
                lines.append(names + (option.value.map { " \\fI\(escape($0))\\fR" } ?? ""))
                lines.append(escape(option.help))
            }
        }
        lines += [
            ".SH ENVIRONMENT",
            ".TP",
            ".B RENDERFARM_PLUGIN_PATH",
            "Colon-separated folders searched for plugins after \\fB\\-\\-plugin\\-path\\fR.",
            ".TP",
            ".B RENDERFARM_SOURCE",
            "The EffectKit package \\fBplugin new \\-\\-lang swift\\fR builds against, instead of the installed copy.",
            ".TP",
            ".B XDG_DATA_HOME",
            "Where the user's plugin folder is: \\fI$XDG_DATA_HOME/renderfarm/plugins\\fR (default",
            "\\fI~/.local/share/renderfarm/plugins\\fR), searched after \\fBRENDERFARM_PLUGIN_PATH\\fR.",
            ".SH FILES",
            ".TP",
            ".I <prefix>/lib/renderfarm/plugins",
            "The installed effect plugins, found through the real path of the renderfarm binary",
            "(symlinks resolved) as ../lib/renderfarm/plugins.",
            ".TP",
            ".I <prefix>/include/renderfarm/renderfarm_plugin.h",
            "The plugin ABI; \\fBpkg-config renderfarm-plugin\\fR gives its flags.",
            ".TP",
            ".I <prefix>/share/renderfarm/swift/EffectKit",
            "EffectKit as a self-contained Swift package, for plugins written in Swift.",
            ".TP",
            ".I <prefix>/share/doc/renderfarm",
            "The documentation (RenderFarm, EffectKit and Motion) as static web pages: under html/ plain pages that need no",
            "JavaScript (\\fBrenderfarm docs \\-\\-html\\fR), under docs/ DocC's pages, which renderfarm studio serves at /docs/.",
            ".SH EXIT STATUS",
            "0 success, 1 some frames failed (or a plugin check found a broken rule), 64 usage,",
            "65 invalid job data, 66 input missing, 69 plugin or external tool unavailable,",
            "73 cannot create output, 74 I/O error, 75 output folder in use by another run, 130 interrupted,",
            "141 standard output or error closed by its reader (piped into head, say; the command stops quietly).",
            ".PP",
            "A plugin that crashes takes the process with it (unless \\fBrender \\-\\-isolate\\fR draws frames in",
            "worker processes): the shell then shows 134 (SIGABRT, the plugin aborted) or 139 (SIGSEGV, the plugin",
            "crashed), after one line on standard error naming the plugin library and frame. Finished frames are",
            "kept; run the same command again to resume.",
            ".SH SEE ALSO",
            "The manual's topics (\\fBrenderfarm docs\\fR lists them, \\fBrenderfarm docs TOPIC\\fR prints one):",
            Manual.topics.map { "\\fB\(escape($0.manName))\\fR(\($0.manSection))" }.joined(separator: ", ") + ";",
            "\\fBrenderfarm help plugin\\fR, \\fBrenderfarm plugin new \\-\\-help\\fR,",
            "\\fBrenderfarm plugin check \\-\\-help\\fR, \\fBffmpeg\\fR(1)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    static func escape(_ text: String) -> String { Roff.escape(text) }
}
