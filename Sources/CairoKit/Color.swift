/// A straight (not premultiplied) RGBA colour with components in 0…1.
public struct Color: Sendable, Equatable, Hashable, Encodable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let black = Color(red: 0, green: 0, blue: 0)

    /// Parses `#RRGGBB` or `#RRGGBBAA` (case-insensitive); nil for anything else.
    public init?(hex text: String) {
        let digits = Array(text.utf8)
        guard digits.first == UInt8(ascii: "#"), digits.count == 7 || digits.count == 9 else { return nil }
        var bytes: [Double] = []
        var index = 1
        while index < digits.count {
            guard let high = Color.hexValue(digits[index]), let low = Color.hexValue(digits[index + 1]) else {
                return nil
            }
            bytes.append(Double(high * 16 + low) / 255)
            index += 2
        }
        self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes.count == 4 ? bytes[3] : 1)
    }

    /// `#RRGGBBAA`, components rounded to 8 bits.
    public var hex: String {
        let parts = [red, green, blue, alpha].map { component -> String in
            let byte = Int((min(max(component, 0), 1) * 255).rounded())
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }
        return "#" + parts.joined()
    }

    /// Whether the colour covers what is below it completely.
    public var isOpaque: Bool { alpha >= 1 }

    private static func hexValue(_ digit: UInt8) -> Int? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(digit - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(digit - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(digit - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
