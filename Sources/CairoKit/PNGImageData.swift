import CZlib

/// The image data of a PNG (its IDAT chunks) held to what its IHDR header declares, before cairo decodes it:
/// decompression bombs are refused in milliseconds. A PNG's rows are one zlib stream; libpng inflates it to
/// its end even after the last row, so a 16 × 16 file whose stream inflates to gigabytes cost seconds of
/// CPU in `validate` and again in `render` (issue 44). Two budgets:
///
/// - **size**: the image data may be at most what the declared rows take stored without compression (every
///   row with its filter byte, each pass of an interlaced image, zlib's stored blocks and framing), and 4 KiB
///   more: no encoder needs more, and a small image's stream cannot inflate to much;
/// - **inflate** (`ImageLimits.inflateBudget`, on for the images a job names): the stream is inflated here,
///   without keeping its output, and refused as soon as it gives more bytes than the declared rows take.
///   It costs one inflate of the image's own size, about a tenth of cairo's decoding.
enum PNGImageData {
    /// Room above the stored size for encoders that split their stream oddly.
    static let slack = 4096

    /// Why the image data of `bytes` (a PNG whose header `PNGHeader` read) is refused, or nil. A header or
    /// chunk layout that libpng refuses anyway is left to it (nil), as is a stream that ends early.
    static func excess(in bytes: [UInt8], width: Int, height: Int, inflate: Bool) -> String? {
        guard let decoded = decodedBytes(bytes, width: width, height: height) else { return nil }
        let chunks = imageData(in: bytes)
        let total = chunks.reduce(0) { $0 + $1.count }
        // zlib's two-byte header and Adler-32, and five bytes a stored block of at most 65,535 bytes.
        let stored = decoded + (decoded / 65_535 + 1) * 5 + 6
        if total > stored + slack {
            return "its image data is \(total) bytes, more than a \(width) × \(height) image can need "
                + "(\(stored + slack) bytes uncompressed): a decompression bomb"
        }
        guard inflate, let inflated = inflatedBeyond(decoded, chunks: chunks, in: bytes) else { return nil }
        return "its image data inflates to more than the \(decoded) bytes of a \(width) × \(height) image "
            + "(\(inflated) bytes inflated when it was refused): a decompression bomb"
    }

    /// The bytes of the rows (filter bytes included) an image of this header decodes to, or nil when the
    /// IHDR's depth, colour type or interlace method is not one PNG has.
    static func decodedBytes(_ bytes: [UInt8], width: Int, height: Int) -> Int? {
        guard bytes.count >= 29, width > 0, height > 0 else { return nil }
        let (depth, colorType, interlace) = (Int(bytes[24]), bytes[25], bytes[28])
        let channels: Int
        switch colorType {
        case 0, 3: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: return nil
        }
        guard [1, 2, 4, 8, 16].contains(depth), interlace <= 1 else { return nil }
        let bitsPerPixel = channels * depth
        func rows(_ columns: Int, _ count: Int) -> Int {
            columns > 0 && count > 0 ? count * ((columns * bitsPerPixel + 7) / 8 + 1) : 0
        }
        guard interlace == 1 else { return rows(width, height) }
        // Adam7: each pass's first column and row, and the steps between them.
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        return passes.reduce(0) { sum, pass in
            let (x, y, dx, dy) = pass
            return sum + rows((width - x + dx - 1) / dx, (height - y + dy - 1) / dy)
        }
    }

    /// The ranges of the IDAT chunks' data in `bytes`, in order, up to IEND or where the chunk layout ends.
    static func imageData(in bytes: [UInt8]) -> [Range<Int>] {
        var chunks: [Range<Int>] = []
        var offset = PNGHeader.signature.count
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = bytes[offset + 4..<offset + 8]
            let start = offset + 8
            guard length <= 0x7FFF_FFFF, start + length <= bytes.count else { break }
            if type.elementsEqual("IDAT".utf8) { chunks.append(start..<start + length) }
            if type.elementsEqual("IEND".utf8) { break }
            offset = start + length + 4
        }
        return chunks
    }

    /// The bytes inflated when the zlib stream of `chunks` gave more than `limit`, or nil when it stays within
    /// it (it ends, is damaged, or is cut off: libpng tells those).
    static func inflatedBeyond(_ limit: Int, chunks: [Range<Int>], in bytes: [UInt8]) -> Int? {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        var inflated = 0
        return bytes.withUnsafeBufferPointer { input -> Int? in
            guard let base = input.baseAddress else { return nil }
            for chunk in chunks where !chunk.isEmpty {
                stream.next_in = UnsafeMutablePointer(mutating: base + chunk.lowerBound)
                stream.avail_in = UInt32(chunk.count)
                while stream.avail_in > 0 {
                    let status = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
                        stream.next_out = buffer.baseAddress
                        stream.avail_out = UInt32(buffer.count)
                        let status = inflate(&stream, Z_NO_FLUSH)
                        inflated += buffer.count - Int(stream.avail_out)
                        return status
                    }
                    if inflated > limit { return inflated }
                    guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
                    // No progress with input left and room for output: a damaged stream.
                    if status == Z_BUF_ERROR { return nil }
                }
            }
            return nil
        }
    }
}
