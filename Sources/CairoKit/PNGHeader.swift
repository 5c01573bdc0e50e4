/// The image size a PNG declares in its IHDR chunk, read from the first 24 bytes without decoding:
/// what the limits are checked against before any pixel memory is allocated.
public struct PNGHeader: Sendable, Equatable {
    /// The eight bytes every PNG starts with (PNG specification, section 5.2).
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Signature, IHDR length and type, width, height.
    static let minimumBytes = 24

    public let width: Int
    public let height: Int

    /// The header of `bytes`, or nil when they do not start with a PNG signature and an IHDR chunk.
    public init?(_ bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(Self.minimumBytes))
        guard head.count == Self.minimumBytes, Array(head[0..<8]) == Self.signature,
            Self.bigEndian(head[8..<12]) == 13, head[12..<16].elementsEqual("IHDR".utf8)
        else { return nil }
        width = Self.bigEndian(head[16..<20])
        height = Self.bigEndian(head[20..<24])
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
