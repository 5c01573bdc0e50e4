import CTurboJPEG
import EffectKit
import Foundation

@testable import StillImage

/// Test pictures made in the test: quadrants of distinct colours, written as PNG (cairo) and JPEG
/// (libjpeg-turbo at quality 100 without chroma subsampling, so each quadrant's inside keeps its colour).
enum TestImages {
    /// Top left, top right, bottom left, bottom right.
    static let red = Color(red: 1, green: 0, blue: 0)
    static let green = Color(red: 0, green: 1, blue: 0)
    static let blue = Color(red: 0, green: 0, blue: 1)
    static let yellow = Color(red: 1, green: 1, blue: 0)
    static let quadrantColors = [red, green, blue, yellow]

    enum Format: String, CaseIterable, Sendable {
        case png, jpeg
    }

    static func quadrants(width: Int, height: Int) throws -> ImageSurface {
        let surface = try ImageSurface(width: width, height: height)
        let context = try DrawingContext(surface: surface)
        let (halfWidth, halfHeight) = (Double(width) / 2, Double(height) / 2)
        for (index, color) in quadrantColors.enumerated() {
            context.setSource(color)
            context.rectangle(
                x: Double(index % 2) * halfWidth, y: Double(index / 2) * halfHeight, width: halfWidth,
                height: halfHeight)
            context.fill()
        }
        surface.flush()
        return surface
    }

    /// The file bytes of `surface` in `format`.
    static func encode(_ surface: ImageSurface, as format: Format) throws -> [UInt8] {
        switch format {
        case .png:
            let path = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("renderfarm-still-\(getpid())-\(UUID().uuidString).png").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try surface.writePNG(to: path)
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        case .jpeg:
            guard let handle = tjInitCompress() else { throw TestFailure("tjInitCompress failed") }
            defer { tjDestroy(handle) }
            var buffer: UnsafeMutablePointer<UInt8>?
            var size: UInt = 0
            let status = tjCompress2(
                handle, surface.bytes, Int32(surface.width), Int32(surface.stride), Int32(surface.height),
                Int32(JPEGDecoder.pixelFormat.rawValue), &buffer, &size, Int32(TJSAMP_444.rawValue), 100, 0)
            defer { tjFree(buffer) }
            guard status == 0, let buffer else { throw TestFailure("tjCompress2 failed") }
            return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A folder for one test's job files, removed at the end.
final class JobFolder {
    let path: String

    init() throws {
        path =
            URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("renderfarm-still-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }
}
