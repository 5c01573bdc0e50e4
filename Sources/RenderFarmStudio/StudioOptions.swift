import Foundation

/// How `renderfarm studio` was started.
package struct StudioOptions: Sendable {
    /// Absolute path of the job file the author view edits.
    package var jobFile: String
    /// Absolute folder the server may read and write under (default: the job's folder).
    package var root: String
    /// Numeric address to bind; loopback unless asked otherwise.
    package var host: String
    /// 0 picks a free port.
    package var port: Int
    /// Required on every request when set; required to be set for a non-loopback `host`.
    package var token: String?
    /// Plugin search path (as `PluginCatalog.searchPath` gives it).
    package var pluginSearchPath: [String]
    /// How the render button runs `renderfarm render`; nil: the studio cannot render.
    package var render: RenderCommandLine?
    /// Seconds the changes in render folders are gathered for before the farm view is updated
    /// (folders are watched with inotify, not rescanned).
    package var statusInterval: Double
    /// The folder holding the static documentation under `docs/<Module>/`
    /// (`<prefix>/share/doc/renderfarm`), served at `/docs/`; nil: `/docs/` says it is not installed.
    package var docsFolder: String?
    /// The folder the page's undo histories are kept in (`StudioHistory`); nil: each page keeps its own.
    package var historyFolder: String?
    /// The worker command line (after the executable) that prepares variant `variant` (nil:
    /// a job without variants) of `jobFile` at `scale` with the plugins of `pluginFolders` — previews are then
    /// drawn by worker processes (`StudioPreviews`; `renderfarm studio`'s default, sandboxed); nil draws them in
    /// this process (`studio --sandbox off`, and a studio made without the CLI).
    package var previewWorker:
        (@Sendable (_ jobFile: String, _ variant: Int?, _ scale: Double?, _ pluginFolders: [String]) -> [String])?
    /// The environment the studio's workers and renders start in: the command's (`CLI.run`'s), which may differ
    /// from this process's, so that they search the plugin folders the studio did.
    package var environment: [String: String]

    package init(
        jobFile: String, root: String? = nil, host: String = "127.0.0.1", port: Int = 0, token: String? = nil,
        pluginSearchPath: [String], statusInterval: Double = 0.5, render: RenderCommandLine? = nil,
        docsFolder: String? = nil, historyFolder: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.environment = environment
        self.docsFolder = docsFolder
        self.historyFolder = historyFolder
        self.render = render
        let job = URL(fileURLWithPath: jobFile).standardizedFileURL
        self.jobFile = job.path
        self.root = URL(fileURLWithPath: root ?? job.deletingLastPathComponent().path).standardizedFileURL.path
        self.host = host
        self.port = port
        self.token = token
        self.pluginSearchPath = pluginSearchPath
        self.statusInterval = statusInterval
    }

    /// The folders of the plugin search path `searchPath` that exist, as a worker's or a render's `--plugin-path`
    /// flags: the search path names default folders that may not exist, which `--plugin-path` refuses (they hold
    /// no plugin either way).
    static func existingFolders(_ searchPath: [String]) -> [String] {
        searchPath.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }
}

/// The render button's command: the `renderfarm` executable, and the words after it that render
/// `jobFile`'s `frames` (a `--frames` set; nil for the job's own) with the plugins of `pluginFolders`,
/// reporting progress as JSON lines on standard error. `renderfarm studio` builds the words from its
/// option table, so the studio spells no flag of `render`.
package struct RenderCommandLine: Sendable {
    /// A render into a video file with an `encode` preset.
    package struct Video: Sendable, Equatable {
        package var file: String
        package var preset: String
        package init(file: String, preset: String) {
            self.file = file
            self.preset = preset
        }
    }

    /// What one press of the render button asks for.
    package struct Request: Sendable {
        package var jobFile: String
        /// A `--frames` set; nil: the job's own.
        package var frames: String?
        package var video: Video?
        /// A folder that does not exist yet, for frames that are only on their way to a video; the
        /// runner removes it when the render ends.
        package var scratch: String
        package var pluginFolders: [String]
        package init(jobFile: String, frames: String?, video: Video?, scratch: String, pluginFolders: [String]) {
            self.jobFile = jobFile
            self.frames = frames
            self.video = video
            self.scratch = scratch
            self.pluginFolders = pluginFolders
        }
    }

    package var executable: String
    /// The command lines (after the executable) run one after another for a request: each must exit
    /// 0 for the next to start.
    package var steps: @Sendable (Request) -> [[String]]

    package init(executable: String, steps: @escaping @Sendable (Request) -> [[String]]) {
        self.executable = executable
        self.steps = steps
    }
}

/// Limits on what a request may ask for.
enum StudioLimits {
    /// The largest request body: a job file's limit (`JobLoader.maxFileBytes`) plus slack.
    static let maxBodyBytes = (1 << 20) + 4096
    /// The most pixels a previewed frame may have (4096 × 4096).
    static let maxFramePixels = 4096 * 4096
    /// Bytes of encoded frames kept in the cache.
    static let cacheBytes = 256 << 20
    /// The largest file `/api/file` serves (a frame of a render under the root).
    static let maxFileBytes = 64 << 20
    /// How deep under the root render folders are looked for.
    static let folderSearchDepth = 5
}

/// Why the studio cannot start.
package struct StudioError: Error, Equatable, CustomStringConvertible {
    package var message: String
    /// True when the options are at fault (exit 64); false when the system is (the port is taken, say).
    package var isUsage = true
    package var description: String { message }
}
