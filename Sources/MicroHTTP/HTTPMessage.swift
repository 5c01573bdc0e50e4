/// One request, read completely (headers, query and body) before the handler sees it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded by libmicrohttpd, without the query.
    public var path: String
    /// Query arguments, percent-decoded (a name given twice keeps its first value).
    public var query: [String: String]
    /// Header fields with lower-cased names.
    public var headers: [String: String]
    /// Cookies sent in the `Cookie` header.
    public var cookies: [String: String]
    public var body: [UInt8]
    /// Whether the peer connected from a loopback address.
    public var peerIsLoopback: Bool
}

/// A response: a status, header fields, and a body that is either bytes or a stream.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Called again and again from the connection's thread: the next bytes to send (it may block
        /// until there are some, ideally for at most a second), or nil to end the response.
        case stream(@Sendable () -> [UInt8]?)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with `text` as its body and `contentType` (UTF-8).
    public static func text(_ text: String, status: Int = 200, contentType: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
    }
}

/// Limits the server holds every request to.
public struct HTTPLimits: Sendable {
    /// The largest request body read; larger ones get 413.
    public var maxBodyBytes: Int
    /// Memory for a request's headers (libmicrohttpd answers larger headers with 431 itself).
    public var headerBytes: Int
    /// Connections at once, from everyone.
    public var maxConnections: Int
    /// Connections at once from one client address (every loopback address counting as one) that have not
    /// shown the trusted cookie (`HTTPServer.trust(cookie:value:)`): a newer one shuts the oldest down, so slow
    /// or idle clients at one address can neither take every connection nor lock a newcomer out.
    public var connectionsPerAddress: Int
    /// Seconds an idle connection stays open.
    public var idleTimeout: Int
    /// Seconds a request's headers may take from their first byte (or the end of the previous request),
    /// however steadily bytes arrive; the connection is closed after that.
    public var headerSeconds: Int
    /// Seconds a request's body may take from the end of its headers, likewise.
    public var bodySeconds: Int

    public init(
        maxBodyBytes: Int = 1 << 20, headerBytes: Int = 32 * 1024, maxConnections: Int = 256,
        connectionsPerAddress: Int = 32, idleTimeout: Int = 60, headerSeconds: Int = 10, bodySeconds: Int = 30
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.headerBytes = headerBytes
        self.maxConnections = maxConnections
        self.connectionsPerAddress = connectionsPerAddress
        self.idleTimeout = idleTimeout
        self.headerSeconds = headerSeconds
        self.bodySeconds = bodySeconds
    }
}

/// The server could not start.
public struct HTTPServerError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
