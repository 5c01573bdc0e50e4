/// A CSV file as RFC 4180 defines it: a header row naming the columns, then records of as
/// many fields; fields separated by commas, records by CRLF or LF; a field in double quotes
/// may hold commas, line breaks and doubled quotes (`""`). UTF-8, with or without a BOM.
package struct CSVTable: Sendable, Equatable {
    /// One record, with the line of the file it starts on (1-based; the header is line 1).
    package struct Record: Sendable, Equatable {
        package var line: Int
        package var fields: [String]
    }

    package var header: [String]
    /// The records with as many fields as the header has columns.
    package var records: [Record]
    /// Every record with another number of fields, told together with the file's other problems
    /// (the rows that are fine are still read and checked).
    package var mismatched: [ParseError] = []

    /// The first problem of a CSV file, with its line.
    package struct ParseError: Error, Equatable {
        package var line: Int
        package var message: String
    }

    package static let maxColumns = 256

    package init(parsing bytes: [UInt8]) throws(ParseError) {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw ParseError(line: 1, message: "is not UTF-8 text")
        }
        // Blank lines carry no record.
        var rows = try Self.rows(Array(text.unicodeScalars)).filter { $0.fields != [""] }
        guard !rows.isEmpty else { throw ParseError(line: 1, message: "is empty: a CSV file needs a header row") }
        let header = rows.removeFirst()
        guard header.fields.count <= Self.maxColumns else {
            throw ParseError(line: 1, message: "has \(header.fields.count) columns; at most \(Self.maxColumns)")
        }
        var seen: Set<String> = []
        for name in header.fields {
            guard !name.isEmpty else { throw ParseError(line: 1, message: "the header has an empty column name") }
            guard seen.insert(name).inserted else {
                throw ParseError(line: 1, message: "the header names column \"\(name)\" twice")
            }
        }
        self.header = header.fields
        records = rows.filter { $0.fields.count == header.fields.count }
        let columns = header.fields.count
        mismatched = rows.filter { $0.fields.count != columns }.map { row in
            let fields = "\(row.fields.count) field\(row.fields.count == 1 ? "" : "s")"
            return ParseError(
                line: row.line,
                message: "has \(fields); the header has \(columns) columns (quote a field that holds a comma)")
        }
    }

    /// Splits the text into records of fields; a blank last line ends the file.
    private static func rows(_ scalars: [Unicode.Scalar]) throws(ParseError) -> [Record] {
        var rows: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var index = 0
        var quoted = false
        var fieldStarted = false
        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            fieldStarted = false
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if quoted {
                if scalar == "\"" {
                    if index + 1 < scalars.count && scalars[index + 1] == "\"" {
                        field.append("\"")
                        index += 2
                        continue
                    }
                    quoted = false
                    index += 1
                    guard index >= scalars.count || [",", "\r", "\n"].contains(scalars[index]) else {
                        throw ParseError(line: line, message: "a quoted field must end at a comma or a line break")
                    }
                    continue
                }
                if scalar == "\n" { line += 1 }
                field.append(scalar)
                index += 1
                continue
            }
            switch scalar {
            case "\"" where !fieldStarted && field.isEmpty:
                quoted = true
                fieldStarted = true
            case "\"":
                throw ParseError(line: line, message: "a quote inside an unquoted field (quote the whole field)")
            case ",":
                endField()
            case "\r" where index + 1 < scalars.count && scalars[index + 1] == "\n":
                break
            case "\n", "\r":
                endField()
                rows.append(Record(line: recordLine, fields: fields))
                fields = []
                line += 1
                recordLine = line
            default:
                field.append(scalar)
                fieldStarted = true
            }
            index += 1
        }
        if quoted { throw ParseError(line: recordLine, message: "a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty || fieldStarted {
            endField()
            rows.append(Record(line: recordLine, fields: fields))
        }
        return rows
    }
}
