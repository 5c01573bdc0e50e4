import FileInput
import Foundation
import Locking
import MicroHTTP
import RenderFarm
import Synchronization

/// `renderfarm studio`: the web page and its API over one job file and the render folders under
/// a root, on an embedded HTTP server, with the job file and plugins watched for changes.
package final class StudioServer: Sendable {
    package let options: StudioOptions
    /// The address to open, with the token when one is required.
    package let url: String
    private let server: HTTPServer
    private let session: StudioSession
    private let events: EventHub
    private let farm: FarmWatch
    private let renders: RenderRunner
    private let watcher: FileWatcher?
    private let stopping = StopFlag()

    package init(_ options: StudioOptions) throws(StudioError) {
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
        let farm = FarmWatch(root: options.root)
        let renders = RenderRunner(options: options, events: events)
        let stopping = self.stopping
        self.options = options
        self.session = session
        self.events = events
        self.farm = farm
        self.renders = renders
        let hostName = options.host.contains(":") ? "[\(options.host)]" : options.host
        // Filled in once the port is known; read by the routes only after the server is up.
        let bound = Locked<(hosts: Set<String>, port: Int)>(([], 0))
        // The page's session cookie, set when the page loads: connections carrying it keep their slot however
        // many other connections one address holds (HTTPLimits.connectionsPerAddress).
        let pageCookie = (0..<2).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined()
        let routes = { @Sendable (request: HTTPRequest) -> HTTPResponse in
            let (hosts, port) = bound.withLock { $0 }
            return StudioRoutes(
                session: session, events: events, farm: farm, renders: renders, options: options, allowedHosts: hosts,
                port: port, pageCookie: pageCookie,
                isStopping: { stopping.isSet }
            ).respond(request)
        }
        do {
            server = try HTTPServer(
                host: options.host, port: options.port,
                limits: HTTPLimits(maxBodyBytes: StudioLimits.maxBodyBytes), handler: routes)
        } catch {
            throw StudioError(message: error.message, isUsage: false)
        }
        let port = server.port
        server.trust(cookie: StudioRoutes.pageCookieName(port: port), value: pageCookie)
        bound.withLock {
            let names = ["127.0.0.1", "localhost", "[::1]", hostName.lowercased()]
            $0 = (Set(names.flatMap { ["\($0):\(port)", $0] }), port)
        }
        // The address to open: a wildcard address (0.0.0.0, ::) is no address to connect to.
        let shown = ReachableAddress.forURL(boundTo: options.host)
        url = "http://\(shown):\(port)/" + (options.token.map { "?token=\($0)" } ?? "")
        watcher = FileWatcher(jobFile: options.jobFile, pluginFolders: options.pluginSearchPath) { change in
            if change.contains(.inputs) {
                session.inputsChanged()
                events.publish("inputs", #"{"generation":\#(session.inputGeneration)}"#)
            }
            if !change.isDisjoint(with: [.job, .plugins, .definition])
                && session.reload(plugins: change.contains(.plugins), definition: change.contains(.definition))
            {
                let source = change.contains(.plugins) ? "plugins" : change.contains(.job) ? "file" : "data"
                events.publish("job", session.jobEvent(source: source))
            }
        }
        if let watcher { session.onFilesRead { watcher.watch($0, as: $1) } }
        startStatusThread()
    }

    /// Publishes the farm's status whenever it changes, until `stop()`.
    private func startStatusThread() {
        let (events, farm, interval, stopping) = (self.events, self.farm, options.statusInterval, self.stopping)
        let thread = Thread {
            var last = farm.json.serialized()
            while !stopping.isSet {
                // Blocks in poll(2) until a watched folder changes; the timeout only bounds `stop()`.
                guard farm.waitForChanges(timeout: 0.5, settle: interval) else { continue }
                let now = farm.json.serialized()
                if now != last {
                    events.publish("status", now)
                    last = now
                }
            }
        }
        thread.name = "renderfarm.studio.status"
        thread.start()
    }

    /// Frame cache hits and misses so far.
    package var cacheCounts: (hits: Int, misses: Int) { session.cacheCounts }

    /// Stops the server: open event streams end, connections close, watching stops.
    package func stop() {
        guard stopping.set() else { return }
        renders.stopAll()
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
