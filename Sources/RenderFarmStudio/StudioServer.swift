import FileInput
import Foundation
import Locking
import MicroHTTP
import RenderFarm
import Synchronization

/// `renderfarm studio`: the web page and its API over one job file and the render folders under
/// a root, on an embedded HTTP server, with the job file and plugins watched for changes.
public final class StudioServer: Sendable {
    public let options: StudioOptions
    /// The address to open, with the token when one is required.
    public let url: String
    private let server: HTTPServer
    private let session: StudioSession
    private let events: EventHub
    private let watcher: FileWatcher?
    private let stopping = StopFlag()

    public init(_ options: StudioOptions) throws(StudioError) {
        if !HTTPServer.isLoopback(options.host) && options.token == nil {
            throw StudioError(
                message:
                    "--host \(options.host) is not a loopback address: give --token so only those who know it can connect"
            )
        }
        if let token = options.token,
            token.count < 8 || token.contains(where: { !$0.isASCII || $0.isWhitespace || $0 == ";" })
        {
            throw StudioError(
                message:
                    "--token must be at least 8 printable ASCII characters without spaces or ';' (got \(token.count))")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.root, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw StudioError(message: "--root \(options.root) is not a folder")
        }
        guard FileManager.default.fileExists(atPath: options.jobFile) else {
            throw StudioError(message: "\(options.jobFile): no such job file")
        }
        guard (try? ConfinedPath.resolve(options.jobFile, in: options.root)) != nil else {
            throw StudioError(message: "\(options.jobFile) is not under the root \(options.root); give --root")
        }
        let session = StudioSession(options: options)
        let events = EventHub()
        let stopping = self.stopping
        self.options = options
        self.session = session
        self.events = events
        let port = options.port
        let hostName = options.host.contains(":") ? "[\(options.host)]" : options.host
        // Filled in once the port is known; read by the routes only after the server is up.
        let allowed = Locked<Set<String>>([])
        let routes = { @Sendable (request: HTTPRequest) -> HTTPResponse in
            StudioRoutes(
                session: session, events: events, options: options, allowedHosts: allowed.withLock { $0 },
                isStopping: { stopping.isSet }
            ).respond(request)
        }
        do {
            server = try HTTPServer(
                host: options.host, port: port, limits: HTTPLimits(maxBodyBytes: StudioLimits.maxBodyBytes),
                handler: routes)
        } catch {
            throw StudioError(message: error.message, isUsage: false)
        }
        let bound = server.port
        allowed.withLock {
            $0 = Set(["127.0.0.1", "localhost", "[::1]", hostName.lowercased()].flatMap { ["\($0):\(bound)", $0] })
        }
        url = "http://\(hostName):\(bound)/" + (options.token.map { "?token=\($0)" } ?? "")
        watcher = FileWatcher(jobFile: options.jobFile, pluginFolders: options.pluginSearchPath) { plugins in
            if session.reload(plugins: plugins) {
                events.publish("job", #"{"version":\#(session.version),"source":"\#(plugins ? "plugins" : "file")"}"#)
            }
        }
        startStatusThread()
    }

    /// Publishes the farm's status whenever it changes, until `stop()`.
    private func startStatusThread() {
        let (events, root, interval, stopping) = (self.events, options.root, options.statusInterval, self.stopping)
        let thread = Thread {
            var last = ""
            while !stopping.isSet {
                let now = FarmStatus.json(root: root).serialized()
                if now != last {
                    events.publish("status", now)
                    last = now
                }
                usleep(UInt32(interval * 1_000_000))
            }
        }
        thread.name = "renderfarm.studio.status"
        thread.start()
    }

    /// Frame cache hits and misses so far.
    public var cacheCounts: (hits: Int, misses: Int) { session.cacheCounts }

    /// Stops the server: open event streams end, connections close, watching stops.
    public func stop() {
        guard stopping.set() else { return }
        watcher?.stop()
        server.stop()
        session.removePluginCopies()
    }
}

/// Set once, when the studio stops; read by its threads.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    /// Sets the flag; true the first time.
    func set() -> Bool { !value.exchange(true, ordering: .relaxed) }
}
