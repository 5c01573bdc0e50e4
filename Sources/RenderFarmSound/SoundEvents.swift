import FileOutput
import RenderFarmJobs
import StrictJSON

/// The times a sound's `events` play it at: the log read by the same reader and with the same
/// location of problems as an effect's event log (`DataRows`), each row's `time` in job seconds and
/// an optional `gain` in dB added to the sound's. Other fields are the effects' and are ignored,
/// so one log can drive an effect and its sound.
package enum SoundEvents {
    package struct Event: Equatable {
        var time: Double
        var decibels: Double
    }

    /// The events of `value` (found at `path`), or every problem; `file` is the log when it is one.
    package static func resolve(_ value: JSONValue, path: String, jobDirectory: String) -> Result<
        (events: [Event], file: (name: String, sha256: String)?), JobDecoder.JobIssues
    > {
        let rows: DataRows
        switch DataRows.load(value, path: path, jobDirectory: jobDirectory) {
        case .failure(let issue): return .failure(JobDecoder.JobIssues([issue]))
        case .success(let read): rows = read
        }
        var issues = rows.problems.map { JobIssue(path: "", $0) }
        var events: [Event] = []
        for row in rows.rows {
            func problem(_ field: String, _ message: String) { issues.append(row.issue(field, message)) }
            func number(_ field: String, in range: ClosedRange<Double>) -> Double? {
                guard var value = row.values[field] else { return nil }
                if row.isText, let text = value.stringValue { value = Template.typed(text, as: .number) }
                guard let number = value.doubleValue, range.contains(number) else {
                    problem(field, "expected a number in \(JSONValue.describe(range)), got \(value.shortText)")
                    return nil
                }
                return number
            }
            guard row.values["time"] != nil else {
                problem("time", "missing (job seconds)")
                continue
            }
            let time = number("time", in: 0...JobDecoder.Limits.maxDuration)
            let gain = row.values["gain"] == nil ? 0 : number("gain", in: AudioSpec.Limits.gain)
            if let time, let gain { events.append(Event(time: time, decibels: gain)) }
        }
        guard issues.isEmpty else {
            let shown = issues.prefix(EventLog.maxIssues)
            let more = issues.count - shown.count
            return .failure(
                JobDecoder.JobIssues(
                    Array(shown) + (more > 0 ? [JobIssue(path: path, "… and \(more) more problems in its events")] : [])
                ))
        }
        guard let name = value.stringValue, case .success(let bytes) = DataFile.read(name, jobDirectory: jobDirectory)
        else { return .success((events, nil)) }
        return .success((events, (name, bytes.withUnsafeBytes { SHA256.hex($0) })))
    }
}
