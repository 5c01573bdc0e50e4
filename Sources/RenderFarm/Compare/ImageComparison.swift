import CairoKit
import FileInput
import Foundation

/// Thresholds for comparing a frame with its reference image.
package struct ComparisonTolerance: Sendable, Equatable {
    /// A pixel counts as changed when a channel differs by more than this (0–255). Anti-aliasing
    /// changes between cairo releases stay well below it; an edge that moved does not.
    package var maxChannelDifference: Int
    /// How many changed pixels are tolerated.
    package var maxChangedPixels: Int
    /// The lowest acceptable peak signal-to-noise ratio over the drawn pixels' channels, in dB.
    package var minPSNR: Double
    /// The largest difference any one channel of any pixel may have, however few pixels change.
    package var maxPixelError: Int

    package init(
        maxChannelDifference: Int = 32, maxChangedPixels: Int = 8, minPSNR: Double = 40, maxPixelError: Int = 128
    ) {
        self.maxChannelDifference = maxChannelDifference
        self.maxChangedPixels = maxChangedPixels
        self.minPSNR = minPSNR
        self.maxPixelError = maxPixelError
    }
}

/// How two images differ.
package struct ImageComparison: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// The largest difference of any channel of any pixel (0–255).
    package var maxDifference: Int
    /// Pixels with a channel differing by more than the tolerance's `maxChannelDifference`.
    package var changedPixels: Int
    /// Pixels that are not fully transparent in either image: what the PSNR is measured over.
    package var drawnPixels: Int
    /// Peak signal-to-noise ratio over the drawn pixels' channels in dB; infinite when they are
    /// identical. Transparent pixels are left out, so a frame that is mostly empty cannot hide a
    /// drawing that changed everywhere by averaging it with its empty space.
    package var psnr: Double
    package var passed: Bool

    /// Compares premultiplied ARGB pixels (so fully transparent pixels always match) and, when
    /// `diffImage` is given and they differ, writes a picture of the difference there: the
    /// reference in grey, changed pixels in red (brighter for larger differences).
    package static func compare(
        _ actualPath: String, _ referencePath: String, tolerance: ComparisonTolerance,
        diffImage: String? = nil
    ) throws(ComparisonError) -> ImageComparison {
        let actual = try load(actualPath)
        let reference = try load(referencePath)
        guard actual.width == reference.width, actual.height == reference.height else {
            throw .sizeMismatch(
                actual: "\(actual.width)×\(actual.height)", reference: "\(reference.width)×\(reference.height)")
        }
        let width = actual.width
        let height = actual.height
        var maxDifference = 0
        var changed = 0
        var drawn = 0
        var squares = 0.0
        let a = actual.bytes
        let r = reference.bytes
        for y in 0..<height {
            for x in 0..<width {
                let (pa, pr) = (y * actual.stride + x * 4, y * reference.stride + x * 4)
                guard a[pa + Self.alphaByte] != 0 || r[pr + Self.alphaByte] != 0 else { continue }
                drawn += 1
                var pixelMax = 0
                for channel in 0..<4 {
                    let difference = abs(Int(a[pa + channel]) - Int(r[pr + channel]))
                    pixelMax = max(pixelMax, difference)
                    squares += Double(difference * difference)
                }
                maxDifference = max(maxDifference, pixelMax)
                if pixelMax > tolerance.maxChannelDifference { changed += 1 }
            }
        }
        let mse = drawn == 0 ? 0 : squares / Double(drawn * 4)
        let psnr = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
        let passed =
            changed <= tolerance.maxChangedPixels && psnr >= tolerance.minPSNR
            && maxDifference <= tolerance.maxPixelError
        if let diffImage, maxDifference > 0 {
            try writeDiff(actual, reference, to: diffImage)
        }
        return ImageComparison(
            width: width, height: height, maxDifference: maxDifference, changedPixels: changed,
            drawnPixels: drawn, psnr: psnr, passed: passed)
    }

    /// Where alpha sits in a native-endian ARGB word: byte 3 on little-endian machines, 0 on big-endian.
    private static let alphaByte = UInt32(1).littleEndian == 1 ? 3 : 0

    private static func load(_ path: String) throws(ComparisonError) -> ImageSurface {
        do {
            return try ImageSurface(contentsOfPNG: path, limits: .frames)
        } catch {
            if case .file(.missing) = error { throw .missing(path: path) }
            throw .image(error)
        }
    }

    private static func writeDiff(_ actual: ImageSurface, _ reference: ImageSurface, to path: String)
        throws(ComparisonError)
    {
        let diff: ImageSurface
        do {
            diff = try ImageSurface(width: actual.width, height: actual.height)
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        let out = diff.bytes
        for y in 0..<actual.height {
            for x in 0..<actual.width {
                let a = actual.bytes.advanced(by: y * actual.stride + x * 4)
                let r = reference.bytes.advanced(by: y * reference.stride + x * 4)
                var difference = 0
                for channel in 0..<4 { difference = max(difference, abs(Int(a[channel]) - Int(r[channel]))) }
                // Native-endian ARGB words: bytes B, G, R, A on little-endian machines.
                let grey = UInt32((Int(r[0]) + Int(r[1]) + Int(r[2])) / 12 + 32)
                let word: UInt32 =
                    difference == 0
                    ? 0xFF00_0000 | grey << 16 | grey << 8 | grey
                    : 0xFF00_0000 | UInt32(min(255, 96 + difference)) << 16
                out.advanced(by: y * diff.stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) {
                    $0.pointee = word
                }
            }
        }
        diff.markDirty()
        do {
            try diff.writePNG(to: path)
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
    }
}

/// Two images cannot be compared.
package enum ComparisonError: Error, Equatable, CustomStringConvertible {
    case missing(path: String)
    case unreadable(path: String, reason: String)
    case sizeMismatch(actual: String, reference: String)
    /// Not a regular file, over the frame limits, or not a PNG.
    case image(ImageFileError)

    package var description: String {
        switch self {
        case .missing(let path): "\(EscapedPath.of(path)) does not exist"
        case .unreadable(let path, let reason): "\(EscapedPath.of(path)): \(reason)"
        case .image(let error): error.description
        case .sizeMismatch(let actual, let reference):
            "the image is \(actual) but the reference is \(reference); render at the reference's scale, "
                + "or regenerate the references with `make update-references`"
        }
    }
}
