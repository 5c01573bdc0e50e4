/// One element of a path in absolute coordinates, as cairo draws it: SVG's quadratic curves and arcs are
/// turned into cubic curves, and horizontal, vertical and smooth commands into plain ones. The `shape`
/// effect draws them; a layer's motion path (``MotionPath``) travels along them.
package enum PathElement: Sendable, Equatable {
    case move(Point)
    case line(Point)
    /// A cubic Bézier curve from the current point: two control points, then the end.
    case curve(Point, Point, Point)
    case close
}

/// Path data as SVG writes it (the `d` attribute, SVG 1.1 section 8.3): every command, absolute and relative
/// (M, L, H, V, C, S, Q, T, A, Z), implicit repetition, and numbers in any of SVG's spellings (`-1.5e2`,
/// `.5.5`, `10-5`).
package struct SVGPath: Sendable, Equatable {
    package let elements: [PathElement]

    /// Parses `data`; errors name the character where parsing stopped.
    package init(_ data: String) throws(SVGPathError) {
        var parser = SVGPathParser(Array(data.utf8))
        elements = try parser.parse()
    }
}

/// Where and why path data could not be read.
package struct SVGPathError: Error, Equatable, CustomStringConvertible {
    /// 1-based position of the character where parsing stopped (one past the end for data that ends early).
    package let position: Int
    /// The data around that position.
    package let excerpt: String
    package let problem: String

    package var description: String {
        excerpt.isEmpty ? "at character \(position): \(problem)" : "at character \(position) (\(excerpt)): \(problem)"
    }
}

/// A recursive-descent reader of SVG path data over its bytes (the grammar is ASCII).
struct SVGPathParser {
    private let bytes: [UInt8]
    private var index = 0
    private var elements: [PathElement] = []
    private var current = Point(0, 0)
    private var subpathStart = Point(0, 0)
    /// The second control point of the last cubic (C, S) or the control point of the last quadratic (Q, T),
    /// for the reflection of the smooth commands S and T.
    private var lastCubicControl: Point?
    private var lastQuadraticControl: Point?
    /// Where the last number read starts.
    private var numberStart = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parse() throws(SVGPathError) -> [PathElement] {
        skipWhitespace()
        guard index < bytes.count else { throw error("the path data is empty; it starts with M x,y") }
        var command: UInt8 = 0
        while true {
            skipWhitespace()
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if Self.commands.contains(byte) {
                command = byte
                index += 1
            } else if command == 0 || !startsNumber() {
                throw error(
                    "expected a command (M, L, H, V, C, S, Q, T, A, Z or their lowercase relative forms), found "
                        + Self.show(byte))
            } else if command == UInt8(ascii: "Z") || command == UInt8(ascii: "z") {
                throw error("Z takes no numbers")
            }
            // A number after a command's arguments repeats it; after M or m the repetitions are lines.
            if elements.isEmpty, command != UInt8(ascii: "M"), command != UInt8(ascii: "m") {
                throw error("path data must start with M or m (a move), not \(Self.show(command))")
            }
            try arguments(of: command)
            if command == UInt8(ascii: "M") { command = UInt8(ascii: "L") }
            if command == UInt8(ascii: "m") { command = UInt8(ascii: "l") }
        }
        return elements
    }

    private static let commands = Set("MmLlHhVvCcSsQqTtAaZz".utf8)

    /// Reads one set of `command`'s arguments and adds its elements.
    private mutating func arguments(of command: UInt8) throws(SVGPathError) {
        let relative = command >= UInt8(ascii: "a")
        let origin = relative ? current : Point(0, 0)
        let name = String(UnicodeScalar(command))
        func offset(_ point: Point) -> Point { Point(origin.x + point.x, origin.y + point.y) }
        var cubicControl: Point?
        var quadraticControl: Point?
        switch command | 0x20 {  // lowercase
        case UInt8(ascii: "z"):
            elements.append(.close)
            current = subpathStart
        case UInt8(ascii: "m"):
            let point = offset(try point(name))
            elements.append(.move(point))
            current = point
            subpathStart = point
        case UInt8(ascii: "l"):
            current = offset(try point(name))
            elements.append(.line(current))
        case UInt8(ascii: "h"):
            current = Point(try coordinate(name, "x") + origin.x, current.y)
            elements.append(.line(current))
        case UInt8(ascii: "v"):
            current = Point(current.x, try coordinate(name, "y") + origin.y)
            elements.append(.line(current))
        case UInt8(ascii: "c"), UInt8(ascii: "s"):
            let first: Point
            if command | 0x20 == UInt8(ascii: "c") {
                first = offset(try point(name))
            } else {
                // S: the first control point mirrors the previous curve's second one, or is the current point.
                first = lastCubicControl.map { Point(2 * current.x - $0.x, 2 * current.y - $0.y) } ?? current
            }
            let second = offset(try point(name))
            let end = offset(try point(name))
            elements.append(.curve(first, second, end))
            current = end
            cubicControl = second
        case UInt8(ascii: "q"), UInt8(ascii: "t"):
            let control: Point
            if command | 0x20 == UInt8(ascii: "q") {
                control = offset(try point(name))
            } else {
                control = lastQuadraticControl.map { Point(2 * current.x - $0.x, 2 * current.y - $0.y) } ?? current
            }
            let end = offset(try point(name))
            // The quadratic raised to a cubic: control points two thirds of the way to the quadratic's.
            let c1 = Point(current.x + 2 / 3 * (control.x - current.x), current.y + 2 / 3 * (control.y - current.y))
            let c2 = Point(end.x + 2 / 3 * (control.x - end.x), end.y + 2 / 3 * (control.y - end.y))
            elements.append(.curve(c1, c2, end))
            current = end
            quadraticControl = control
        default:  // a
            let rx = try number(name, "rx")
            let ry = try number(name, "ry")
            let rotation = try number(name, "x-axis-rotation")
            let large = try flag(name, "large-arc-flag")
            let sweep = try flag(name, "sweep-flag")
            let end = offset(try point(name))
            let arc = SVGArc(
                from: current, to: end, radii: Point(rx, ry), rotation: rotation, largeArc: large, sweep: sweep)
            elements += arc.elements
            current = end
        }
        lastCubicControl = cubicControl
        lastQuadraticControl = quadraticControl
    }

    // MARK: Tokens

    private mutating func point(_ command: String) throws(SVGPathError) -> Point {
        Point(try coordinate(command, "x"), try coordinate(command, "y"))
    }

    /// A number that becomes a coordinate: within ±``Point/coordinateLimit``.
    private mutating func coordinate(_ command: String, _ what: String) throws(SVGPathError) -> Double {
        let value = try number(command, what)
        guard abs(value) <= Point.coordinateLimit else {
            index = numberStart
            throw error("\(what) of \(command) must be within ±\(Int(Point.coordinateLimit)) points")
        }
        return value
    }

    /// A number, after optional whitespace and a comma.
    private mutating func number(_ command: String, _ what: String) throws(SVGPathError) -> Double {
        skipSeparator()
        let start = index
        numberStart = start
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerDigits = skipDigits()
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fractionDigits = skipDigits()
        }
        guard integerDigits + fractionDigits > 0 else {
            index = start
            let found = index < bytes.count ? "found \(Self.show(bytes[index]))" : "the data ends"
            throw error("expected a number (\(what) of \(command)), \(found)")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard skipDigits() > 0 else { throw error("expected the digits of an exponent") }
        }
        // Only ASCII digits, signs, a point and an exponent were taken: Double parses every such text.
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            index = start
            throw error("\(text) is out of range")
        }
        return value
    }

    /// An arc flag: 0 or 1, which needs no separator from what follows (`a1 1 0 1150 0`).
    private mutating func flag(_ command: String, _ what: String) throws(SVGPathError) -> Bool {
        skipSeparator()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "0") || bytes[index] == UInt8(ascii: "1") else {
            let found = index < bytes.count ? "found \(Self.show(bytes[index]))" : "the data ends"
            throw error("expected 0 or 1 (\(what) of \(command)), \(found)")
        }
        index += 1
        return bytes[index - 1] == UInt8(ascii: "1")
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// Whitespace with at most one comma in it.
    private mutating func skipSeparator() {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
        }
    }

    /// Whether a number (of a repeated command) follows, after optional whitespace and a comma.
    private mutating func startsNumber() -> Bool {
        let start = index
        skipSeparator()
        let starts =
            index < bytes.count
            && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
                || bytes[index] == UInt8(ascii: ".")
                || (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")))
        index = start
        return starts
    }

    private static func show(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F
            ? "\"\(Character(UnicodeScalar(byte)))\"" : "the byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func error(_ problem: String) -> SVGPathError {
        let from = max(0, index - 12)
        let to = min(bytes.count, index + 12)
        var excerpt = String(decoding: bytes[from..<to], as: UTF8.self)
        if from > 0 { excerpt = "…" + excerpt }
        if to < bytes.count { excerpt += "…" }
        return SVGPathError(
            position: index + 1, excerpt: excerpt.isEmpty ? "" : "near \"\(excerpt)\"", problem: problem)
    }
}
