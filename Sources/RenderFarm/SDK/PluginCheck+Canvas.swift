import CairoKit
import Foundation
import RenderFarmJobs
import StrictJSON

extension PluginCheck {
    /// How far, in points, the drawing's bounds at twice the scale may lie from its bounds at the
    /// setting's scale (antialiasing moves an edge by up to a pixel).
    static let scaleTolerance = 2.0
    /// The largest ratio between the areas covered at the two scales (antialiased edges, hinted text).
    static let scaleAreaRatio = 1.25
    /// What the backdrop check paints under the layer: opaque, so every byte of it is known.
    static let backdrop = Color(red: 0.2, green: 0.4, blue: 0.8)

    /// The drawing must scale: the host applies the canvas scale to the cairo context, and a plugin
    /// must draw in points (never reset the matrix or size things in pixels). Each frame is drawn
    /// again by an instance created at twice the scale; the drawn pixels' bounds and covered area,
    /// in points, must match the frame at the setting's scale.
    func scaleFinding(_ defaults: JSONObject, _ serial: [Int: Frame]) -> PluginFinding {
        var doubled = setting
        doubled.scale = setting.scale * 2
        let large = PluginCheck(plugin, setting: doubled)
        let instance: PluginInstance
        do throws(PluginCallError) {
            instance = try large.makeInstance(defaults)
        } catch {
            return PluginFinding(
                .failure, "scale", "create at scale \(Self.format(doubled.scale)) failed: \(error.message)")
        }
        var compared = 0
        for index in setting.frames {
            guard let small = serial[index] else { continue }
            guard case .success(let big) = large.draw(instance, index) else {
                return PluginFinding(.failure, "scale", "frame \(index) failed at scale \(Self.format(doubled.scale))")
            }
            let one = Coverage(small, scale: setting.scale)
            let two = Coverage(big, scale: doubled.scale)
            let scales = "scale \(Self.format(setting.scale)) and \(Self.format(doubled.scale))"
            switch (one.bounds, two.bounds) {
            case (nil, nil): continue
            case (let a?, let b?):
                let apart = zip(a, b).map { abs($0 - $1) }.max() ?? 0
                let ratio = max(one.area, two.area) / max(min(one.area, two.area), 1e-9)
                guard apart <= Self.scaleTolerance, ratio <= Self.scaleAreaRatio else {
                    return PluginFinding(
                        .failure, "scale",
                        "frame \(index) draws \(Self.describe(a)) covering \(Self.format(one.area)) pt² at scale "
                            + "\(Self.format(setting.scale)), but \(Self.describe(b)) covering \(Self.format(two.area)) "
                            + "pt² at scale \(Self.format(doubled.scale)): draw in points, as the host scales the "
                            + "cairo context (never reset its matrix or size things in pixels)")
                }
                compared += 1
            case (let a, _):
                return PluginFinding(
                    .failure, "scale",
                    "frame \(index) is blank at scale \(Self.format(a == nil ? setting.scale : doubled.scale)) but "
                        + "not at the other (\(scales)): the drawing must not depend on the scale")
            }
        }
        guard compared > 0 else { return PluginFinding(.note, "scale", "every frame is blank; not checked") }
        return PluginFinding(
            .pass, "scale",
            "\(compared) frames drawn at scale \(Self.format(setting.scale)) and \(Self.format(doubled.scale)) "
                + "cover the same points (bounds within \(Self.format(Self.scaleTolerance)) pt)")
    }

    /// A layer draws over the layers below it: wherever it draws nothing on a transparent canvas, a
    /// backdrop painted first must come through byte for byte (a plugin that clears the surface, or
    /// paints with CAIRO_OPERATOR_SOURCE or CLEAR, wipes the layers under it).
    func backdropFinding(_ instance: PluginInstance, _ serial: [Int: Frame]) -> PluginFinding {
        let expected = Self.backdropPixel
        let expectedWord = expected.withUnsafeBytes { $0.load(as: UInt32.self) }
        var checked = 0
        for index in setting.frames {
            guard let alone = serial[index] else { continue }
            guard case .success(let over) = draw(instance, index, over: Self.backdrop) else {
                return PluginFinding(.failure, "backdrop", "frame \(index) failed over a backdrop")
            }
            var wiped = 0
            var first: (x: Int, y: Int, pixel: [UInt8])?
            // The pixels compared as 32-bit words (each at a multiple of 4 bytes in the array's aligned storage).
            over.pixels.withUnsafeBytes { bytes in
                guard let words = bytes.baseAddress?.assumingMemoryBound(to: UInt32.self) else { return }
                alone.alphas { offset, alpha in
                    guard alpha == 0 else { return true }
                    checked += 1
                    guard words[offset / 4] != expectedWord else { return true }
                    wiped += 1
                    if first == nil {
                        first = (offset % alone.stride / 4, offset / alone.stride, Array(bytes[offset..<offset + 4]))
                    }
                    return true
                }
            }
            if let first {
                return PluginFinding(
                    .failure, "backdrop",
                    "frame \(index) changes \(wiped) pixels of the layers below where it draws nothing (at pixel "
                        + "(\(first.x), \(first.y)) \(Self.hex(expected)) became \(Self.hex(first.pixel))): draw over "
                        + "what is there (CAIRO_OPERATOR_OVER); never clear or paint the whole surface")
            }
        }
        guard checked > 0 else { return PluginFinding(.note, "backdrop", "draws every pixel; not checked") }
        return PluginFinding(
            .pass, "backdrop", "the layers below survive wherever the layer draws nothing (\(checked) pixels checked)")
    }

    /// The backdrop as cairo holds it (ARGB32, little-endian B, G, R, A; opaque, so not premultiplied).
    static var backdropPixel: [UInt8] {
        let channels = [backdrop.blue, backdrop.green, backdrop.red, backdrop.alpha]
        return channels.map { UInt8(($0 * 255).rounded()) }
    }

    /// Where a frame's drawn pixels lie and how much they cover, in points.
    struct Coverage {
        /// minX, minY, maxX, maxY of the pixels with any alpha, in points; nil when the frame is blank.
        var bounds: [Double]?
        /// The covered area in square points (alpha-weighted).
        var area: Double

        init(_ frame: Frame, scale: Double) {
            var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
            var alphaSum = 0
            // Row by row through a pointer, with no closure per pixel (`Frame.alphas`): a check renders
            // thousands of frames, and a debug build runs closures and ranges through generic code.
            frame.pixels.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress, frame.stride >= 4 else { return }
                let (width, rows) = (frame.stride / 4, bytes.count / frame.stride)
                var y = 0
                while y < rows {
                    let alphas = base + y * frame.stride + 3
                    var (first, last, x) = (-1, -1, 0)
                    while x < width {
                        let alpha = Int(alphas[x &* 4])
                        if alpha != 0 {
                            if first < 0 { first = x }
                            last = x
                            alphaSum += alpha
                        }
                        x += 1
                    }
                    if first >= 0 {
                        (minX, maxX) = (min(minX, first), max(maxX, last))
                        (minY, maxY) = (min(minY, y), y)
                    }
                    y += 1
                }
            }
            bounds = maxX < 0 ? nil : [minX, minY, maxX + 1, maxY + 1].map { Double($0) / scale }
            area = Double(alphaSum) / 255 / (scale * scale)
        }
    }

    static func describe(_ bounds: [Double]) -> String {
        "(\(format(bounds[0])), \(format(bounds[1])))–(\(format(bounds[2])), \(format(bounds[3]))) pt"
    }

    static func format(_ value: Double) -> String { String(format: "%g", (value * 10).rounded() / 10) }

    static func hex(_ pixel: [UInt8]) -> String {
        String(format: "#%02X%02X%02X%02X", pixel[2], pixel[1], pixel[0], pixel[3])
    }
}
