import Foundation

/// Server-Sent Events for every open `/api/events` stream: each event gets a sequence number,
/// and a stream waits (bounded) for the ones after the last it sent.
final class EventHub: @unchecked Sendable {
    struct Event: Sendable {
        var sequence: Int
        var name: String
        var data: String
    }

    // `@unchecked Sendable`: `events` and `sequence` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var events: [Event] = []
    private var sequence = 0
    private static let kept = 64

    /// Sends `data` (one line of JSON) as event `name` to every stream.
    func publish(_ name: String, _ data: String) {
        condition.lock()
        sequence += 1
        events.append(Event(sequence: sequence, name: name, data: data))
        if events.count > Self.kept { events.removeFirst(events.count - Self.kept) }
        condition.broadcast()
        condition.unlock()
    }

    /// The newest sequence number.
    var latest: Int {
        condition.lock()
        defer { condition.unlock() }
        return sequence
    }

    /// The events after `sequence`, waiting up to `timeout` seconds for one.
    func events(after sequence: Int, timeout: Double) -> [Event] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while self.sequence <= sequence {
            if !condition.wait(until: deadline) { return [] }
        }
        return events.filter { $0.sequence > sequence }
    }

    /// One event in the wire format of `text/event-stream`.
    static func encode(_ name: String, _ data: String) -> [UInt8] {
        Array("event: \(name)\ndata: \(data.replacingOccurrences(of: "\n", with: "\ndata: "))\n\n".utf8)
    }
}
