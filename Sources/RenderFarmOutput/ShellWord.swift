import FileInput

/// How generated scripts carry user text (paths, frame sets, variant names): every script a scheduler
/// runs (`SlurmScripts` today) writes a value from the user only as `ShellWord.quoted(value)`, and names
/// a job in comments only by `ShellWord.plain(name)`, so no value can add a line, a directive or a
/// command to a script.
package enum ShellWord {
    /// `text` as one bash word that stays on its line: unchanged when it holds only letters, digits
    /// and `/._-+,:=@`; ANSI-C quoted (`$'a\nb'`) when it holds a control character (a line break
    /// included); else single-quoted.
    package static func quoted(_ text: String) -> String {
        if !text.isEmpty && text.allSatisfy({ isPlain($0, or: "/._-+,:=@") }) { return text }
        guard text.unicodeScalars.contains(where: isControl) else {
            return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        var word = "$'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": word += "\\\\"
            case "'": word += "\\'"
            case "\n": word += "\\n"
            case "\t": word += "\\t"
            case _ where isControl(scalar): word += escape(scalar)
            default: word.unicodeScalars.append(scalar)
            }
        }
        return word + "'"
    }

    /// `text` with every character but ASCII letters, digits and `-_.` replaced by `_`, at most
    /// `limit` characters: how a script's comments and `--job-name` name a job.
    package static func plain(_ text: String, limit: Int = 48) -> String {
        String(text.prefix(limit).map { isPlain($0, or: "-_.") ? $0 : "_" })
    }

    /// An ASCII letter or digit, or one of `extra`.
    package static func isPlain(_ character: Character, or extra: String) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || extra.contains(character))
    }

    /// A control character written as an escape that bash's `$'…'` and a reader both understand:
    /// `\r`, `\x1B` (C0 and DEL), `\u0085` (C1). `Terminal.escaped` writes control characters so too.
    package static func escape(_ scalar: Unicode.Scalar) -> String { EscapedPath.escape(scalar) }

    /// A C0 or C1 control character or DEL (Unicode category Cc).
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
