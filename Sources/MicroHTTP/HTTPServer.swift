import CHTTPShim
import CMicroHTTPD
import Locking
import Synchronization

/// An embedded HTTP/1.1 server (libmicrohttpd, one thread per connection): every complete request
/// goes to `handler`, whose response is sent as it is. Connections are held to `HTTPLimits`: per
/// address, and to header and body deadlines that a slow client cannot stretch. Parsing, keep-alive and chunked bodies are
/// libmicrohttpd's; this type only moves requests and responses between it and Swift.
public final class HTTPServer: Sendable {
    /// The port listened on (the one chosen by the system when 0 was asked for).
    public let port: Int
    public let host: String
    private let context: ServerContext
    private let daemon: Locked<OpaquePointer?>

    /// Listens on the numeric address `host` and `port` (0: any free port) until `stop()`.
    public init(
        host: String, port: Int, limits: HTTPLimits = HTTPLimits(),
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws(HTTPServerError) {
        guard (0...65535).contains(port) else { throw HTTPServerError(message: "port \(port) is not in 0…65535") }
        let context = ServerContext(limits: limits, handler: handler)
        var bound: UInt16 = 0
        var message = [CChar](repeating: 0, count: 256)
        let settings = rf_http_limits(
            header_bytes: limits.headerBytes, connection_limit: UInt32(clamping: limits.maxConnections),
            per_address_limit: UInt32(clamping: limits.connectionsPerAddress),
            idle_seconds: UInt32(clamping: limits.idleTimeout), header_seconds: UInt32(clamping: limits.headerSeconds),
            body_seconds: UInt32(clamping: limits.bodySeconds))
        let started = rf_http_start(
            host, UInt16(port), ServerCallbacks.access, Unmanaged.passUnretained(context).toOpaque(),
            ServerCallbacks.completed, settings, &bound, &message, message.count)
        guard let started else {
            throw HTTPServerError(message: String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        self.context = context
        self.host = host
        self.port = Int(bound)
        daemon = Locked(started)
    }

    /// Trusts connections whose requests carry cookie `name` with exactly `value`: they are not counted
    /// against their address's `connectionsPerAddress` and never shut down to make room for another.
    public func trust(cookie name: String, value: String) {
        daemon.withLock { daemon in
            if let running = daemon { _ = rf_http_trust_cookie(running, name, value) }
        }
    }

    /// Whether `host` is a numeric loopback address (127.0.0.0/8 or ::1).
    public static func isLoopback(_ host: String) -> Bool { rf_http_is_loopback(host) != 0 }

    /// Stops listening, ends open streams and waits for the connections' threads.
    public func stop() {
        context.stopping.store(true, ordering: .sequentiallyConsistent)
        daemon.withLock { daemon in
            if let running = daemon { rf_http_stop(running) }
            daemon = nil
        }
    }

    deinit { stop() }
}

/// What the C callbacks reach through their `cls` pointer; the server keeps it alive while the
/// daemon runs.
final class ServerContext: Sendable {
    let limits: HTTPLimits
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let stopping = Atomic<Bool>(false)

    init(limits: HTTPLimits, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.limits = limits
        self.handler = handler
    }
}

/// The body of one request as it arrives; owned by libmicrohttpd's `con_cls` until completion.
final class RequestBody {
    var bytes: [UInt8] = []
    var tooLarge = false
}

/// A streamed body and the bytes of it not yet handed to libmicrohttpd.
final class StreamState {
    let next: @Sendable () -> [UInt8]?
    let context: ServerContext
    var pending: [UInt8] = []
    var offset = 0

    init(next: @escaping @Sendable () -> [UInt8]?, context: ServerContext) {
        self.next = next
        self.context = context
    }
}
