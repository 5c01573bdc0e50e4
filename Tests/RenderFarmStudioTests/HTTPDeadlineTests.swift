import Foundation
import MicroHTTP
import Testing

@Suite("MicroHTTP: deadlines that bytes do not reset")
struct HTTPDeadlineTests {
    @Test("a client sending its headers a byte at a time is cut off at the header deadline")
    func trickledHeaders() throws {
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, limits: HTTPLimits(idleTimeout: 60, headerSeconds: 1),
            handler: { _ in .text("ok", contentType: "text/plain") })
        defer { server.stop() }
        let client = RawHTTP(port: server.port)
        let socket = try client.openConnection(from: "127.0.0.3")
        defer { close(socket) }
        // One byte every 100 ms: an idle timeout would never fire; the deadline closes it.
        var closed = false
        for byte in Array("GET / HTTP/1.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 150) {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) > 0 {
                var scratch = [UInt8](repeating: 0, count: 64)
                if recv(socket, &scratch, scratch.count, 0) <= 0 {
                    closed = true
                    break
                }
            }
            if send(socket, [byte], 1, Int32(MSG_NOSIGNAL)) <= 0 {
                closed = true
                break
            }
        }
        #expect(closed, "the server still read a trickled header after 15 s")
        #expect(try client.send("GET", "/").status == 200)
    }
}
