import Foundation
import StrictJSON

/// Rows of data a job refers to (`variants.rows`, a layer's `events`): a CSV, JSON or JSONL file
/// in the job's folder, or an inline list of objects. Every row knows where it came from, so a
/// problem in it is reported at its line.
package struct DataRows: Sendable, Equatable {
    package struct Row: Sendable, Equatable {
        /// The file or job path the row is in; `place` says where in it.
        private var source: String
        private var place: Place
        package var values: JSONObject
        /// Whether the values are CSV text, to be typed by the place they are used in.
        package var isText: Bool

        /// A line of a file (`streamers.csv:7`), an element of a file's list (`events.json[3]`), an
        /// entry of a list written in the job (`variants.rows[3]`), or the whole source. Kept apart
        /// from the source's name, so a million rows do not hold a million strings for the one that a
        /// message may name.
        package enum Place: Sendable, Equatable {
            case whole
            case line(Int)
            case element(Int)
            case entry(Int)
        }

        package init(_ source: String, _ place: Place = .whole, values: JSONObject, isText: Bool) {
            self.source = source
            self.place = place
            self.values = values
            self.isText = isText
        }

        /// Where the row is: `streamers.csv:7`, `events.jsonl:12` or `variants.rows[3]`.
        package var origin: String {
            switch place {
            case .whole: source
            case .line(let line): "\(source):\(line)"
            case .element(let index), .entry(let index): "\(source)[\(index)]"
            }
        }

        /// A problem with the row's `field`: a row written in the job is told at its place there
        /// (`layers[0].params.events[3].time`), a row of a file at its line or element
        /// (`events.csv:7: time: …`).
        package func issue(_ field: String, _ message: String) -> JobIssue {
            if case .entry = place { return JobIssue(path: "\(origin).\(field)", message) }
            return JobIssue(path: "", "\(origin): \(field): \(message)")
        }
    }

    package var rows: [Row]
    /// Column names in the order the source first names them.
    package var columns: [String]
    /// The name of the CSV file the rows were read from (their values are its cells' text).
    package var csvFile: String?
    /// Rows that could not be read (a CSV record with the wrong number of fields), each with its line:
    /// the caller tells them with the problems of the rows that were read.
    package var problems: [String] = []

    package static let maxRows = 1_000_000

    /// Reads `value` found at `path` of the job: a file name or a list of objects.
    package static func load(_ value: JSONValue, path: String, jobDirectory: String) -> Result<DataRows, JobIssue> {
        switch value {
        case .array(let list):
            var rows: [Row] = []
            for (index, element) in list.enumerated() {
                guard let object = element.objectValue else {
                    return .failure(JobIssue(path: "\(path)[\(index)]", "expected an object, got \(element.typeName)"))
                }
                rows.append(Row(path, .entry(index), values: object, isText: false))
            }
            return .success(DataRows(rows: rows))
        case .string(let file):
            let bytes: [UInt8]
            switch DataFile.read(file, jobDirectory: jobDirectory) {
            case .success(let read): bytes = read
            case .failure(let problem): return .failure(JobIssue(path: path, problem.message))
            }
            let name = (file as NSString).lastPathComponent
            let lowered = file.lowercased()
            let parsed =
                lowered.hasSuffix(".csv")
                ? csv(bytes, name: name)
                : lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson")
                    ? jsonLines(bytes, name: name)
                    : lowered.hasSuffix(".json")
                        ? json(bytes, name: name)
                        : .failure(DataProblem("\(file): expected a .csv, .json or .jsonl file"))
            switch parsed {
            case .success(let rows):
                guard rows.rows.count <= maxRows else {
                    return .failure(JobIssue(path: path, "\(file) has \(rows.rows.count) rows; at most \(maxRows)"))
                }
                return .success(rows)
            case .failure(let problem): return .failure(JobIssue(path: path, problem.message))
            }
        default:
            return .failure(
                JobIssue(
                    path: path, "expected a file name (.csv, .json, .jsonl) or a list of objects, got \(value.typeName)"
                ))
        }
    }

    /// `columns` defaults to every key of the rows in first-seen order.
    private init(rows: [Row], columns: [String]? = nil, csvFile: String? = nil) {
        self.rows = rows
        self.csvFile = csvFile
        var seen: Set<String> = []
        self.columns = columns ?? rows.flatMap(\.values.keys).filter { seen.insert($0).inserted }
    }

    private static func csv(_ bytes: [UInt8], name: String) -> Result<DataRows, DataProblem> {
        do {
            let table = try CSVTable(parsing: bytes)
            let rows = table.records.map { record in
                Row(
                    name, .line(record.line),
                    values: JSONObject(zip(table.header, record.fields).map { (key: $0, value: .string($1)) }),
                    isText: true)
            }
            var data = DataRows(rows: rows, columns: table.header, csvFile: name)
            data.problems = table.mismatched.map { "\(name):\($0.line): \($0.message)" }
            return .success(data)
        } catch {
            return .failure(DataProblem("\(name):\(error.line): \(error.message)"))
        }
    }

    private static func json(_ bytes: [UInt8], name: String) -> Result<DataRows, DataProblem> {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: limits)
        } catch {
            return .failure(DataProblem("\(name): \(error)"))
        }
        guard let list = value.arrayValue else { return .failure(DataProblem("\(name): expected a list of objects")) }
        var rows: [Row] = []
        for (index, element) in list.enumerated() {
            guard let object = element.objectValue else {
                return .failure(DataProblem("\(name): element \(index) is \(element.typeName), not an object"))
            }
            rows.append(Row(name, .element(index), values: object, isText: false))
        }
        return .success(DataRows(rows: rows))
    }

    private static func jsonLines(_ bytes: [UInt8], name: String) -> Result<DataRows, DataProblem> {
        var rows: [Row] = []
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        {
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
            let value: JSONValue
            do {
                value = try JSONParser.parse(line, limits: limits)
            } catch {
                return .failure(DataProblem("\(name):\(number + 1): \(error.message)"))
            }
            guard let object = value.objectValue else {
                return .failure(DataProblem("\(name):\(number + 1): expected an object, got \(value.typeName)"))
            }
            rows.append(Row(name, .line(number + 1), values: object, isText: false))
        }
        return .success(DataRows(rows: rows))
    }

    private static let limits = JSONParser.Limits(
        maxBytes: DataFile.maxBytes, maxDepth: 16, maxStringBytes: 4096, maxContainerCount: 10_000_000)
}
