import Foundation

/// A bare HTTP/1.1 client on loopback sockets, so tests can send exactly the bytes they mean
/// (malformed request lines, lying lengths, traversal paths no URL type would keep).
struct RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object, or nil.
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int

    /// Sends `method path` with `headers` and `body`, and reads the whole response (the connection closes).
    func send(
        _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = [],
        host: String? = nil
    ) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        return try exchange(Array((head + "\r\n").utf8) + body)
    }

    /// Sends `bytes` as they are and reads the response until the server closes the connection.
    func exchange(_ bytes: [UInt8], deadline: Double = 60) throws -> Response {
        let socket = try connect()
        defer { close(socket) }
        try write(socket, bytes)
        var received: [UInt8] = []
        let end = Date(timeIntervalSinceNow: deadline)
        while true {
            guard let chunk = try read(socket, until: end) else { break }
            received += chunk
        }
        return try parse(received)
    }

    /// Starts a render (`POST /api/render?query`) with the event stream open, calls `meanwhile`, and reads
    /// the stream until the render's `finished` event: the start's answer and the events.
    func render(
        _ query: String = "", seconds: Double = 120, meanwhile: @escaping () throws -> Void = {}
    ) throws -> (started: Response, events: String) {
        var started: Response?
        let events = try stream(
            "/api/events", seconds: seconds,
            after: {
                started = try send("POST", "/api/render" + query)
                try meanwhile()
            },
            until: { $0.contains(#""state":"finished""#) })
        guard let started else { throw Failure(description: "the render was not started") }
        return (started, events)
    }

    /// Opens `path` and returns what arrives within `seconds`, or once `enough` holds for it.
    func stream(_ path: String, seconds: Double, after: (() throws -> Void)? = nil, until enough: (String) -> Bool)
        throws
        -> String
    {
        let socket = try connect()
        defer { close(socket) }
        try write(socket, Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        var received: [UInt8] = []
        var started = false
        let end = Date(timeIntervalSinceNow: seconds)
        while Date() < end {
            guard let chunk = try read(socket, until: min(end, Date(timeIntervalSinceNow: 0.1)), timeoutIsEnd: false)
            else { break }
            received += chunk
            let text = String(decoding: received, as: UTF8.self)
            if !started, text.contains("event: status") {
                started = true
                try after?()
            }
            if started && enough(text) { return text }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A connection from `source` (any 127.x.y.z: a client at another address) left open for the
    /// caller to write to and close.
    func openConnection(from source: String) throws -> Int32 { try connect(from: source) }

    /// Writes `bytes` on a connection from `openConnection`.
    func write(_ bytes: [UInt8], on socket: Int32) throws { try write(socket, bytes) }

    /// What arrives on `socket` within `seconds` (empty when nothing does), or nil once the server closed it.
    func receive(on socket: Int32, within seconds: Double) throws -> [UInt8]? {
        try read(socket, until: Date(timeIntervalSinceNow: seconds), timeoutIsEnd: false)
    }

    private func connect(from source: String = "127.0.0.1") throws -> Int32 {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        if source != "127.0.0.1" {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(socket)
                throw Failure(description: "bind to \(source): \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw Failure(description: "connect to port \(port): \(errno)")
        }
        return socket
    }

    private func write(_ socket: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return }  // the server may close early (e.g. 413); read what it said
            offset += sent
        }
    }

    /// The next bytes, or nil at the end of the stream (or at `deadline` when `timeoutIsEnd`).
    private func read(_ socket: Int32, until deadline: Date, timeoutIsEnd: Bool = true) throws -> [UInt8]? {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = max(0, Int32(deadline.timeIntervalSinceNow * 1000))
        let ready = poll(&poller, 1, milliseconds)
        if ready == 0 {
            if timeoutIsEnd { throw Failure(description: "no response before the deadline") }
            return []
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(buffer.prefix(count)) : nil
    }

    private func parse(_ bytes: [UInt8]) throws -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let split = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "no complete response: \(String(decoding: bytes, as: UTF8.self))")
        }
        let lines = String(decoding: bytes[..<split], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(bytes[(split + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = unchunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    private func unchunk(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16), size > 0
            else { break }
            let start = lineEnd + 2
            result += bytes[start..<min(start + size, bytes.count)]
            index = start + size + 2
        }
        return result
    }
}
