/// One ffmpeg invocation: its arguments (without the program name) and the folder it runs in.
package struct FFmpegCommand: Sendable, Equatable {
    package var arguments: [String]

    package init(arguments: [String]) { self.arguments = arguments }

    /// The command as a line that can be pasted into a shell in the folder it runs in.
    package var shellLine: String { (["ffmpeg"] + arguments).map(Self.quoted).joined(separator: " ") }

    /// `argument` quoted for a POSIX shell when it needs to be.
    package static func quoted(_ argument: String) -> String {
        let plain = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=+%,@".contains($0) }
        if plain && !argument.isEmpty { return argument }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
