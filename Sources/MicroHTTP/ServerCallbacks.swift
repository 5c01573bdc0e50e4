import CHTTPShim
import CMicroHTTPD

/// The C entry points libmicrohttpd calls. Unsafe code is kept here: each `cls` pointer is an
/// `Unmanaged` reference whose lifetime is stated where it is made.
enum ServerCallbacks {
    /// Called once when the headers are in, once per piece of body, then once more to answer.
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, state in
        guard let cls, let connection, let state, let uploadSize else { return rf_http_no }
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        guard let existing = state.pointee else {
            // Released in `completed`, which libmicrohttpd calls for every request it called us for.
            let body = RequestBody()
            state.pointee = Unmanaged.passRetained(body).toOpaque()
            let declared = rf_http_lookup_value(connection, rf_http_header_kind, "Content-Length")
                .flatMap { Int(String(cString: $0)) }
            if let declared, declared > context.limits.maxBodyBytes {
                return send(tooLarge(context.limits), on: connection, context: context)
            }
            return rf_http_yes
        }
        let body = Unmanaged<RequestBody>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !body.tooLarge, let uploadData {
                let count = uploadSize.pointee
                uploadData.withMemoryRebound(to: UInt8.self, capacity: count) {
                    body.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                }
                if body.bytes.count > context.limits.maxBodyBytes {
                    body.tooLarge = true
                    body.bytes = []
                }
            }
            uploadSize.pointee = 0
            return rf_http_yes
        }
        if body.tooLarge { return send(tooLarge(context.limits), on: connection, context: context) }
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/",
            query: values(of: connection, kind: rf_http_query_kind, lowercased: false),
            headers: values(of: connection, kind: rf_http_header_kind, lowercased: true),
            cookies: values(of: connection, kind: rf_http_cookie_kind, lowercased: false), body: body.bytes,
            peerIsLoopback: rf_http_peer_is_loopback(connection) != 0)
        return send(context.handler(request), on: connection, context: context)
    }

    static let completed: MHD_RequestCompletedCallback = { _, _, state, _ in
        guard let state, let body = state.pointee else { return }
        Unmanaged<RequestBody>.fromOpaque(body).release()
        state.pointee = nil
    }

    /// Hands a stream's bytes to libmicrohttpd; blocks in `next` until there are some.
    static let read: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return rf_http_end_of_stream }
        let stream = Unmanaged<StreamState>.fromOpaque(cls).takeUnretainedValue()
        while stream.offset >= stream.pending.count {
            if stream.context.stopping.load(ordering: .sequentiallyConsistent) { return rf_http_end_of_stream }
            guard let next = stream.next() else { return rf_http_end_of_stream }
            stream.pending = next
            stream.offset = 0
        }
        let count = min(max, stream.pending.count - stream.offset)
        stream.pending.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                UnsafeMutableRawPointer(buffer).copyMemory(from: base + stream.offset, byteCount: count)
            }
        }
        stream.offset += count
        return count
    }

    static let freeStream: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<StreamState>.fromOpaque(cls).release()
    }

    private static func tooLarge(_ limits: HTTPLimits) -> HTTPResponse {
        .text(
            #"{"error":"the request body is larger than \#(limits.maxBodyBytes) bytes"}"#, status: 413,
            contentType: "application/json")
    }

    private static func send(_ response: HTTPResponse, on connection: OpaquePointer, context: ServerContext)
        -> MHD_Result
    {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { buffer in
                rf_http_response_from_buffer(
                    buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), rf_http_copy_memory)
            }
        case .stream(let next):
            // Released by `freeStream` when libmicrohttpd destroys the response.
            let state = Unmanaged.passRetained(StreamState(next: next, context: context)).toOpaque()
            made = rf_http_response_from_callback(rf_http_size_unknown, 16 * 1024, read, state, freeStream)
            if made == nil { Unmanaged<StreamState>.fromOpaque(state).release() }
        }
        guard let made else { return rf_http_no }
        defer { rf_http_destroy_response(made) }
        for header in response.headers {
            _ = rf_http_add_header(made, header.name, header.value)
        }
        return rf_http_queue_response(connection, UInt32(response.status), made)
    }

    /// The key/value pairs of one kind (headers, query arguments, cookies).
    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind, lowercased: Bool)
        -> [String: String]
    {
        final class Collected {
            var values: [String: String] = [:]
            var lowercased = false
        }
        let collected = Collected()
        collected.lowercased = lowercased
        // The pointer is only used during this synchronous call.
        _ = rf_http_connection_values(
            connection, kind,
            { cls, _, key, value in
                guard let cls, let key else { return rf_http_yes }
                let collected = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
                var name = String(cString: key)
                if collected.lowercased { name = name.lowercased() }
                if collected.values[name] == nil { collected.values[name] = value.map { String(cString: $0) } ?? "" }
                return rf_http_yes
            }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.values
    }
}
