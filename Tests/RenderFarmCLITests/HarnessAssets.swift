import Foundation

/// What a file of a generated job folder is.
enum HarnessAssetKind: String, Sendable, CaseIterable {
    /// A PNG or JPEG (the `image` effect's `file`).
    case picture
    /// A PNG (item images of the drop and physics effects).
    case png
    case lottie, footage, font, sound
    /// An event log (CSV or JSONL) a layer's `events` names.
    case events
    /// The variants' CSV.
    case rows
}

/// One file of a generated job folder, as the harness models it.
enum HarnessAsset: Sendable, Equatable {
    case file(HarnessAssetKind, Data)
    case events(HarnessEventLog)
    case rows(HarnessRows)

    var kind: HarnessAssetKind {
        switch self {
        case .file(let kind, _): kind
        case .events: .events
        case .rows: .rows
        }
    }

    var data: Data {
        switch self {
        case .file(_, let data): data
        case .events(let log): log.data
        case .rows(let rows): rows.data
        }
    }
}

/// An event log file: one event per CSV row or JSONL line.
struct HarnessEventLog: Sendable, Equatable {
    var csv: Bool
    /// The fields besides `time`, in column order.
    var columns: [String]
    var events: [[String: HarnessJSON]]

    var data: Data {
        guard csv else { return Data(events.map { HarnessJSON.object($0).text + "\n" }.joined().utf8) }
        var lines = [(["time"] + columns).joined(separator: ",")]
        for event in events {
            lines.append((["time"] + columns).map { event[$0].map(HarnessRows.cell) ?? "" }.joined(separator: ","))
        }
        return Data(lines.map { $0 + "\n" }.joined().utf8)
    }
}

/// The variants' rows: a CSV with a header.
struct HarnessRows: Sendable, Equatable {
    var header: [String]
    var rows: [[HarnessJSON]]

    var data: Data {
        let lines = [header.joined(separator: ",")] + rows.map { $0.map(Self.cell).joined(separator: ",") }
        return Data(lines.map { $0 + "\n" }.joined().utf8)
    }

    /// A value as a CSV cell (RFC 4180 quoting); times and other fractions with two decimals, so
    /// that a cell can change without changing its length.
    static func cell(_ value: HarnessJSON) -> String {
        let text: String
        switch value {
        case .string(let string): text = string
        case .number(let number):
            text = number == number.rounded() ? HarnessJSON.format(number) : String(format: "%.2f", number)
        case .bool(let flag): text = flag ? "true" : "false"
        default: text = value.text
        }
        guard text.contains(where: { ",\"\n\r".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
