import EffectKit

extension SVGPath {
    /// Adds the path to the context's current path.
    package func append(to context: DrawingContext) {
        for element in elements {
            switch element {
            case .move(let point): context.move(to: point.x, point.y)
            case .line(let point): context.line(to: point.x, point.y)
            case .curve(let c1, let c2, let end):
                context.curve(to: end.x, end.y, control1: c1.x, c1.y, control2: c2.x, c2.y)
            case .close: context.closePath()
            }
        }
    }
}
