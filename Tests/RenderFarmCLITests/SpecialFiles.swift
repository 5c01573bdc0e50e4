import Foundation

/// Hostile entries put where RenderFarm reads input: each must be refused at once, never waited on.
enum SpecialFile: String, CaseIterable, CustomStringConvertible, Sendable {
    case namedPipe
    case socket
    /// A symbolic link to /dev/zero (endless bytes).
    case deviceLink

    var description: String { rawValue }

    /// What the message calls it when the path is opened as given.
    var kind: String {
        switch self {
        case .namedPipe: "a named pipe"
        case .socket: "a socket"
        case .deviceLink: "a character device"
        }
    }

    /// Creates the entry at `path`.
    func create(at path: String) throws {
        switch self {
        case .namedPipe:
            guard mkfifo(path, 0o644) == 0 else { throw ToolError(message: "mkfifo \(path): \(errno)") }
        case .socket:
            try Self.bindSocket(at: path)
        case .deviceLink:
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
        }
    }

    /// A Unix socket file at `path` (the descriptor is closed; the file stays until removed). The
    /// address names the folder through its descriptor (`/proc/self/fd/N/name`): a socket address holds
    /// 107 bytes, fewer than a test folder's path under a long `TMPDIR`.
    private static func bindSocket(at path: String) throws {
        let url = URL(fileURLWithPath: path)
        let parent = url.deletingLastPathComponent().path
        let folder = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw ToolError(message: "open \(parent): \(errno)") }
        defer { close(folder) }
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ToolError(message: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array("/proc/self/fd/\(folder)/\(url.lastPathComponent)".utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw ToolError(message: "socket name too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw ToolError(message: "bind \(path): \(errno)") }
    }
}

/// Where RenderFarm reads a file on a user's behalf.
enum InputPlace: String, CaseIterable, CustomStringConvertible, Sendable {
    /// A job file named on the command line.
    case jobArgument
    /// A `*.json` entry of a folder named on the command line.
    case scannedJob
    /// A `parabolic-drop` layer's `image`.
    case imageAsset
    /// A data file a job names (`variants.rows`).
    case dataFile

    var description: String { rawValue }
}

/// Small jobs for the special-file and asset-limit tests.
enum SmallJob {
    /// `--progress none` for `render`, nothing for commands without progress.
    static func quiet(_ command: String) -> [String] { command == "render" ? ["--progress", "none"] : [] }

    /// A 50 × 50 pt job of three frames, with an optional `parabolic-drop` image and variant rows file.
    static func text(image: String? = nil, rows: String? = nil) -> String {
        let layer =
            image.map { #"{"effect": "parabolic-drop", "params": {"shape": "image", "image": "\#($0)"}}"# }
            ?? #"{"effect": "floating-heart", "params": {"emitter": [25, 45], "size": 10}}"#
        let variants = rows.map { #""variants": {"rows": "\#($0)"}, "# } ?? ""
        return #"{"canvas": {"width": 50, "height": 50, "scale": 1}, "fps": 30, "duration": 0.1, \#(variants)"#
            + #""layers": [\#(layer)]}"#
    }
}
