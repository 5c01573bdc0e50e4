/// Byte values of the ASCII characters that JSON syntax uses.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let period: UInt8 = 0x2E
    static let slash: UInt8 = 0x2F
    static let zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39
    static let colon: UInt8 = 0x3A
    static let openBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let closeBracket: UInt8 = 0x5D
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D

    /// The uppercase hexadecimal digit for `value` (0...15).
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? zero + value : 0x41 + (value - 10)
    }

    /// Whether `byte` is an ASCII decimal digit.
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= zero && byte <= nine
    }
}
