import CCairo

/// How a layer's pixels combine with what is under them: the W3C Compositing and Blending modes
/// cairo implements (`CAIRO_OPERATOR_MULTIPLY` …), plus `add` (the sum, clamped).
public enum BlendMode: String, Sendable, CaseIterable, Encodable {
    case normal, multiply, screen, overlay, darken, lighten
    case colorDodge = "color-dodge"
    case colorBurn = "color-burn"
    case hardLight = "hard-light"
    case softLight = "soft-light"
    case difference, exclusion, add

    /// The cairo operator that draws a source with this mode.
    var cairoOperator: cairo_operator_t {
        switch self {
        case .normal: CAIRO_OPERATOR_OVER
        case .multiply: CAIRO_OPERATOR_MULTIPLY
        case .screen: CAIRO_OPERATOR_SCREEN
        case .overlay: CAIRO_OPERATOR_OVERLAY
        case .darken: CAIRO_OPERATOR_DARKEN
        case .lighten: CAIRO_OPERATOR_LIGHTEN
        case .colorDodge: CAIRO_OPERATOR_COLOR_DODGE
        case .colorBurn: CAIRO_OPERATOR_COLOR_BURN
        case .hardLight: CAIRO_OPERATOR_HARD_LIGHT
        case .softLight: CAIRO_OPERATOR_SOFT_LIGHT
        case .difference: CAIRO_OPERATOR_DIFFERENCE
        case .exclusion: CAIRO_OPERATOR_EXCLUSION
        case .add: CAIRO_OPERATOR_ADD
        }
    }
}
