import CPNGWriter
import CairoKit
import FileOutput
import Foundation
import RenderFarmOutput

/// How a contact sheet is laid out.
package struct ContactSheetOptions: Sendable {
    /// Thumbnails per row; nil for up to 4.
    package var columns: Int?
    /// Width of the whole sheet in pixels.
    package var width: Int
    /// Draw each item's path, control points, bounds and velocity over its frame (from traces).
    package var debug: Bool

    package init(columns: Int? = nil, width: Int = 1200, debug: Bool = false) {
        self.columns = columns
        self.width = width
        self.debug = debug
    }

    /// Frames a sheet shows without `--frames`.
    package static let defaultFrameCount = 12
}

/// Where a sheet's frames come from: rendered directly from a job, or PNGs of an output folder.
package enum SheetSource {
    case job(PlannedJob)
    case output(RenderedOutput, trace: PlannedJob?)
}

/// A grid of thumbnails with frame number and time under each, transparency shown over a
/// checkerboard; optionally with the motion drawn over each frame (`--debug`).
package enum ContactSheet {
    static let margin = 12.0
    static let labelHeight = 22.0
    static let checker = 8.0

    /// `count` frames of `frames` spread evenly from first to last.
    package static func spread(_ frames: [Int], count: Int = ContactSheetOptions.defaultFrameCount) -> [Int] {
        guard frames.count > count, count > 1 else { return frames }
        return (0..<count).map { frames[$0 * (frames.count - 1) / (count - 1)] }
    }

    /// Draws the sheet of `frames` from `source`.
    package static func draw(_ source: SheetSource, frames: [Int], options: ContactSheetOptions)
        throws(PreviewError) -> ImageSurface
    {
        guard !frames.isEmpty else { throw .noFrames }
        let (imageWidth, imageHeight, fps) =
            switch source {
            case .job(let job): (job.spec.canvas.pixelWidth, job.spec.canvas.pixelHeight, job.spec.fps)
            case .output(let output, _): (output.width, output.height, output.fps)
            }
        let columns = max(1, min(options.columns ?? 4, frames.count))
        let rows = (frames.count + columns - 1) / columns
        let cellWidth = (Double(options.width) - margin * Double(columns + 1)) / Double(columns)
        guard cellWidth >= 16 else {
            throw .layout(
                "--width \(options.width) leaves \(Int(cellWidth)) pixels per thumbnail; "
                    + "use a larger width or fewer columns")
        }
        let scale = cellWidth / Double(imageWidth)
        let cellHeight = (Double(imageHeight) * scale).rounded(.up)
        let height = Int(margin + Double(rows) * (cellHeight + labelHeight + margin))
        let sheet: ImageSurface
        let context: DrawingContext
        do {
            sheet = try ImageSurface(width: options.width, height: height)
            context = try DrawingContext(surface: sheet)
        } catch {
            throw .drawing(error.description)
        }
        context.setSource(Color(red: 0.12, green: 0.12, blue: 0.13))
        context.paint()
        var worker: FrameWorker?
        for (position, index) in frames.enumerated() {
            let x = margin + Double(position % columns) * (cellWidth + margin)
            let y = margin + Double(position / columns) * (cellHeight + labelHeight + margin)
            drawChecker(context, x: x, y: y, width: cellWidth, height: cellHeight)
            switch source {
            case .job(let job):
                let frameWorker = worker ?? FrameWorker()
                worker = frameWorker
                do throws(FrameFailure) {
                    let surface = try frameWorker.draw(index, of: job)
                    paint(surface, on: context, x: x, y: y, scale: scale, width: cellWidth, height: cellHeight)
                } catch {
                    throw .frame(index: index, message: error.message)
                }
            case .output(let output, _):
                guard let frame = output.frames.first(where: { $0.index == index && $0.ok }) else {
                    throw .frameMissing(index: index, directory: output.directory)
                }
                do {
                    let surface = try ImageSurface(contentsOfPNG: output.path(of: frame), limits: .frames)
                    paint(surface, on: context, x: x, y: y, scale: scale, width: cellWidth, height: cellHeight)
                } catch {
                    throw .frame(index: index, message: error.description)
                }
            }
            if options.debug {
                let traced: PlannedJob? =
                    switch source {
                    case .job(let job): job
                    case .output(_, let job): job
                    }
                if let traced {
                    context.save()
                    context.rectangle(x: x, y: y, width: cellWidth, height: cellHeight)
                    context.clip()
                    defer { context.restore() }
                    try MotionOverlay.draw(
                        traced, frame: index, on: context, x: x, y: y,
                        pointScale: cellWidth / traced.spec.canvas.width)
                }
            }
            label(
                context, "frame \(index)   \(String(format: "%.2f", Double(index) / fps)) s",
                x: x, y: y + cellHeight, width: cellWidth)
        }
        sheet.flush()
        return sheet
    }

    /// zlib level of the sheet's PNG (libpng's default): a sheet is written once and looked at.
    static let compression: Int32 = 6

    /// Writes the sheet as a PNG, encoded in memory and written with `AtomicFile`, like frames:
    /// nothing takes the name unless whole, and a full disk is the I/O error (exit 74) every
    /// write of ours reports.
    package static func write(_ sheet: ImageSurface, to path: String) throws(PreviewError) {
        let target = URL(fileURLWithPath: path).standardizedFileURL.path
        sheet.flush()
        var encoder = rf_png_encoder()
        defer { rf_png_encoder_free(&encoder) }
        let failure: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { message in
            guard let base = message.baseAddress else { return "no memory for a message" }
            let status = rf_png_encode_argb32(
                &encoder, sheet.bytes, UInt32(sheet.width), UInt32(sheet.height), sheet.stride, compression,
                RF_PNG_FILTER_ADAPTIVE, nil, base, message.count)
            return status == 0 ? nil : String(cString: base)
        }
        if let failure { throw .output(.io(path: target, reason: "cannot encode the PNG: \(failure)")) }
        do {
            try AtomicFile.write(UnsafeRawBufferPointer(start: encoder.data, count: encoder.length), to: target)
        } catch {
            throw .output(error)
        }
    }

    private static func paint(
        _ surface: ImageSurface, on context: DrawingContext, x: Double, y: Double, scale: Double,
        width: Double, height: Double
    ) {
        context.save()
        context.rectangle(x: x, y: y, width: width, height: height)
        context.clip()
        context.setSource(surface, x: x, y: y, scale: scale)
        context.paint()
        context.restore()
    }

    private static func drawChecker(_ context: DrawingContext, x: Double, y: Double, width: Double, height: Double) {
        context.save()
        context.rectangle(x: x, y: y, width: width, height: height)
        context.clip()
        context.setSource(Color(red: 0.8, green: 0.8, blue: 0.8))
        context.paint()
        context.setSource(Color(red: 0.6, green: 0.6, blue: 0.6))
        var row = 0
        var top = y
        while top < y + height {
            var left = x + (row % 2 == 0 ? 0 : checker)
            while left < x + width {
                context.rectangle(x: left, y: top, width: checker, height: checker)
                left += 2 * checker
            }
            top += checker
            row += 1
        }
        context.fill()
        context.restore()
    }

    private static func label(_ context: DrawingContext, _ text: String, x: Double, y: Double, width: Double) {
        context.save()
        context.selectFont(family: "sans-serif")
        context.setFontSize(12)
        context.setSource(Color(red: 0.9, green: 0.9, blue: 0.9))
        context.move(to: x + max(0, (width - context.textWidth(text)) / 2), y + labelHeight - 6)
        context.showText(text)
        context.restore()
    }
}

/// A contact sheet cannot be made.
package enum PreviewError: Error, Equatable, CustomStringConvertible {
    case noFrames
    case frameMissing(index: Int, directory: String)
    case frame(index: Int, message: String)
    case trace(TraceError)
    case layout(String)
    case drawing(String)
    case output(OutputError)

    package var description: String {
        switch self {
        case .noFrames: "no frames to show; check --frames"
        case .frameMissing(let index, let directory):
            "frame \(index) is not among the written frames in \(directory); pick frames the manifest lists"
        case .frame(let index, let message): "frame \(index): \(message)"
        case .trace(let error): "tracing for --debug: \(error)"
        case .layout(let message): message
        case .drawing(let message): message
        case .output(let error): error.description
        }
    }
}
