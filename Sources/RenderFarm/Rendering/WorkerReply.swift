import Foundation

/// The replies of the worker protocol, shared by both ends so they cannot drift apart:
/// `ok SHA256 BYTES OPAQUE DRAW CONVERT ENCODE WRITE` followed by the frame's BYTES bytes of PNG (a worker
/// sends `noChecksum` and 0 for WRITE: the parent hashes and writes the bytes), or
/// `fail frame MESSAGE` (a failed attempt). `fail create|io PATH<TAB>REASON` (output cannot be written: the
/// render stops) is the in-process form of an output failure; workers write no output, and the parent does
/// not believe one that says so.
enum WorkerReply {
    /// `fail sandbox MESSAGE`: written by the sandbox's SIGSYS handler (CSandbox) before the worker ends.
    static let sandboxDenial = "fail sandbox "
    /// Sent instead of a frame's reply by a worker whose CPU time nears its hard limit: it ends, and the parent
    /// asks a new worker for the frame (once: a second `retire` for one frame is a reply the protocol lacks).
    static let retire = "retire"
    /// The checksum field of a worker's frame reply (the parent computes the frame's own).
    static let noChecksum = String(repeating: "0", count: 64)

    static func line(_ result: Result<WrittenFrame, FrameFailure>) -> String {
        switch result {
        case .success(let frame):
            let t = frame.timings
            return
                "ok \(frame.sha256) \(frame.bytes) \(frame.opaque ? 1 : 0) \(t.draw) \(t.convert) \(t.encode) \(t.write)"
        case .failure(.output(.cannotCreate(let path, let reason))):
            return "fail create \(path)\t\(reason)"
        case .failure(.output(.io(let path, let reason))):
            return "fail io \(path)\t\(reason)"
        case .failure(.output(let error)):
            return "fail io \(error.description)\t"
        case .failure(let failure):
            return "fail frame \(failure.message)"
        }
    }

    static func frame(_ line: String) throws(FrameFailure) -> WrittenFrame {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("ok", _):
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 8, let bytes = Int(fields[2]) else { throw .worker("unreadable reply \"\(line)\"") }
            let numbers = fields[4...].map { Double($0) ?? 0 }
            return WrittenFrame(
                sha256: fields[1], bytes: bytes, opaque: fields[3] == "1",
                timings: FrameTimings(draw: numbers[0], convert: numbers[1], encode: numbers[2], write: numbers[3]))
        case ("fail", 3):
            let detail = parts[2].split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            let (path, reason) = (String(detail[0]), detail.count > 1 ? String(detail[1]) : "")
            switch parts[1] {
            case "create": throw .output(.cannotCreate(path: path, reason: reason))
            case "io": throw .output(.io(path: path, reason: reason.isEmpty ? "in a worker process" : reason))
            default: throw .worker(parts[2])
            }
        default:
            throw .worker("unreadable reply \"\(line)\"")
        }
    }
}
