import CCairo
import CPango
import EffectKit
import Foundation

/// One grapheme cluster of a layout: what a text animator moves, scales, turns and fades as one character
/// (EffectKit article TextEffect, "Animators").
struct TextCluster: Sendable, Equatable {
    /// Its text (a character, a conjunct, an emoji sequence).
    var text: String
    /// Its UTF-8 bytes in the layout's text.
    var bytes: Range<Int>
    var line: Int
    /// Where its pen starts on the baseline, placed, and how far its glyphs advance, in points.
    var pen: Point
    var advance: Double
    /// The line's logical box over its advance (Pango's `index_to_pos`), placed.
    var box: Rect
    /// A markup colour of its run (`<span foreground>`), which the animators' fill starts from.
    var foreground: Color?
    /// Whether it is only white space (it belongs to no word).
    var isSpace: Bool

    /// The middle of its advance on the baseline: the point it turns and scales about.
    var anchor: Point { Point(pen.x + advance / 2, pen.y) }
}

extension TextLayout {
    /// The clusters of `layout` placed at `origin`, and their glyphs; call with ``PangoWorld/shared`` locked.
    static func clusters(of layout: OpaquePointer, origin: Point) -> ([TextCluster], [rf_text_cluster]) {
        let text = pango_layout_get_text(layout).map { Array(String(cString: $0).utf8) } ?? []
        var raw: [rf_text_cluster] = []
        withUnsafeMutablePointer(to: &raw) { pointer in
            rf_text_layout_clusters(layout, pointer) { user, cluster in
                guard let user, let cluster else { return }
                user.assumingMemoryBound(to: [rf_text_cluster].self).pointee.append(cluster.pointee)
            }
        }
        let scale = Double(PANGO_SCALE)
        let clusters = raw.map { cluster in
            let bytes = Int(cluster.start)..<max(Int(cluster.start), min(Int(cluster.end), text.count))
            let string = String(decoding: text[bytes], as: UTF8.self)
            var rect = PangoRectangle()
            pango_layout_index_to_pos(layout, cluster.start, &rect)
            let line = Rect(pango: rect)
            let pen = Point(origin.x + Double(cluster.x) / scale, origin.y + Double(cluster.baseline) / scale)
            let advance = Double(cluster.width) / scale
            let color = cluster.foreground
            return TextCluster(
                text: string, bytes: bytes, line: Int(cluster.line), pen: pen, advance: advance,
                box: Rect(x: pen.x, y: origin.y + line.y, width: advance, height: line.height),
                foreground: cluster.has_foreground != 0
                    ? Color(red: Double(color.0) / 65535, green: Double(color.1) / 65535, blue: Double(color.2) / 65535)
                    : nil,
                isSpace: string.unicodeScalars.allSatisfy { $0.properties.isWhitespace })
        }
        return (clusters, raw)
    }

    /// Draws cluster `index` with the current source at its own place in user space (or adds its outline to the
    /// path). Takes ``PangoWorld/shared`` for Pango's call: call without it.
    func showCluster(_ index: Int, on cr: OpaquePointer, pathOnly: Bool = false) {
        let cluster = clusters[index]
        withUnsafePointer(to: clusterGlyphs[index]) { glyphs in
            PangoWorld.shared.withLock { _ in
                rf_text_show_cluster(cr, glyphs, cluster.pen.x, cluster.pen.y, pathOnly ? 1 : 0)
            }
        }
    }
}
