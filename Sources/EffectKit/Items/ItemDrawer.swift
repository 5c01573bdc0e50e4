import Foundation

/// Draws items in their looks, centred on a point: what the drop and bounce effects share.
public enum ItemDrawer {
    /// Default colours of the built-in shapes.
    public static let giftColor = Color(red: 0.91, green: 0.22, blue: 0.30)
    public static let ribbonColor = Color(red: 1.0, green: 0.83, blue: 0.30)
    public static let coinColor = Color(red: 0.97, green: 0.79, blue: 0.28)
    public static let coinRimColor = Color(red: 0.79, green: 0.60, blue: 0.12)
    public static let heartColor = Color(red: 1.0, green: 0.30, blue: 0.43)
    public static let circleColor = Color(red: 0.30, green: 0.64, blue: 1.0)
    public static let boxColor = Color(red: 0.56, green: 0.49, blue: 0.76)

    /// Draws `look` at `size` with its centre at `center`, turned by `angle` radians (clockwise on screen).
    public static func draw(
        _ look: ItemLook, size: Size, center: Point, angle: Double = 0, in context: DrawingContext
    ) {
        guard size.width > 0, size.height > 0 else { return }
        context.withSavedState {
            context.translate(center.x, center.y)
            if angle != 0 { context.rotate(angle) }
            if let image = look.image {
                image.draw(in: context, x: -size.width / 2, y: -size.height / 2, width: size.width, height: size.height)
                return
            }
            switch look.shape {
            case .gift: drawGift(size, look.color ?? giftColor, in: context)
            case .coin: drawCoin(size, look.color ?? coinColor, in: context)
            case .heart: drawHeart(size, look.color ?? heartColor, in: context)
            case .circle:
                ellipse(size, in: context)
                context.setSource(look.color ?? circleColor)
                context.fill()
            case .box, .image:
                context.roundedRectangle(
                    Rect(center: Point(0, 0), size: size), radius: min(size.width, size.height) * 0.12)
                context.setSource(look.color ?? boxColor)
                context.fill()
            }
        }
    }

    /// A box with a lid, a vertical ribbon and a two-loop bow, filling the item's bounds.
    private static func drawGift(_ size: Size, _ color: Color, in context: DrawingContext) {
        let (w, h) = (size.width, size.height)
        let (left, top) = (-w / 2, -h / 2)
        let lidTop = top + h * 0.22
        let lidBottom = top + h * 0.42
        // Bow: two loops above the lid.
        context.setSource(ribbonColor)
        for side in [-1.0, 1.0] {
            context.withSavedState {
                context.translate(side * w * 0.14, top + h * 0.12)
                context.scale(w * 0.15, h * 0.11)
                context.arc(centerX: 0, centerY: 0, radius: 1, from: 0, to: 2 * .pi)
            }
            context.fill()
        }
        // Body, a little narrower than the lid, in a darker shade.
        context.rectangle(x: left + w * 0.06, y: lidBottom, width: w * 0.88, height: top + h - lidBottom)
        context.setSource(shade(color, 0.82))
        context.fill()
        context.rectangle(x: left, y: lidTop, width: w, height: lidBottom - lidTop)
        context.setSource(color)
        context.fill()
        // Ribbon down the middle.
        context.rectangle(x: -w * 0.08, y: lidTop, width: w * 0.16, height: top + h - lidTop)
        context.setSource(ribbonColor)
        context.fill()
    }

    /// A gold disc with a darker rim and an inner ring.
    private static func drawCoin(_ size: Size, _ color: Color, in context: DrawingContext) {
        let radius = min(size.width, size.height) / 2
        context.arc(centerX: 0, centerY: 0, radius: radius, from: 0, to: 2 * .pi)
        context.setSource(shade(color, 0.8))
        context.fill()
        context.arc(centerX: 0, centerY: 0, radius: radius * 0.86, from: 0, to: 2 * .pi)
        context.setSource(color)
        context.fill()
        context.arc(centerX: 0, centerY: 0, radius: radius * 0.62, from: 0, to: 2 * .pi)
        context.setSource(shade(color, 0.85))
        context.setLineWidth(radius * 0.08)
        context.stroke()
    }

    /// The floating heart's outline (two quad curves and two arcs), scaled to the bounds, white 1 pt stroke.
    private static func drawHeart(_ size: Size, _ color: Color, in context: DrawingContext) {
        context.heartPath(size)
        context.setSource(color)
        context.fillPreserve()
        context.setSource(.white)
        context.setLineWidth(1)
        context.setLineJoin(.round)
        context.stroke()
    }

    private static func ellipse(_ size: Size, in context: DrawingContext) {
        context.withSavedState {
            context.scale(size.width / 2, size.height / 2)
            context.arc(centerX: 0, centerY: 0, radius: 1, from: 0, to: 2 * .pi)
        }
    }

    private static func shade(_ color: Color, _ factor: Double) -> Color {
        Color(red: color.red * factor, green: color.green * factor, blue: color.blue * factor, alpha: color.alpha)
    }
}

extension DrawingContext {
    /// Adds the floating heart's outline (two quad curves and two arcs) filling a `size` box centred on the
    /// origin; the current transformation is kept.
    public func heartPath(_ size: Size) {
        withSavedState {
            // Build the path in a unit square; the path keeps the scale, a stroke after it does not.
            scale(size.width, size.height)
            let pad = 0.055
            let radius = (1 - 2 * pad) / 4
            let left = Point(pad - 0.5, -0.5 + 1.0 / 3)
            let tip = Point(0, 0.5 - pad)
            move(to: tip.x, tip.y)
            quadCurve(to: left.x, left.y, control: left.x, left.y + radius)
            arc(centerX: left.x + radius, centerY: left.y, radius: radius, from: .pi, to: 2 * .pi)
            arc(centerX: left.x + 3 * radius, centerY: left.y, radius: radius, from: .pi, to: 2 * .pi)
            quadCurve(to: tip.x, tip.y, control: left.x + 4 * radius, left.y + radius)
            closePath()
        }
    }

    /// A new path: `rect` with its corners rounded by `radius` (at most half its shorter side).
    public func roundedRectangle(_ rect: Rect, radius: Double) {
        let (x, y, width, height) = (rect.x, rect.y, rect.width, rect.height)
        let r = max(0, min(radius, width / 2, height / 2))
        newPath()
        arc(centerX: x + width - r, centerY: y + r, radius: r, from: -.pi / 2, to: 0)
        arc(centerX: x + width - r, centerY: y + height - r, radius: r, from: 0, to: .pi / 2)
        arc(centerX: x + r, centerY: y + height - r, radius: r, from: .pi / 2, to: .pi)
        arc(centerX: x + r, centerY: y + r, radius: r, from: .pi, to: 1.5 * .pi)
        closePath()
    }
}
